"""google.rpc.Status in the `grpc-status-details-bin` trailer, both ways: decoded (with its ErrorInfo
and BadRequest details) for the client, encoded for the server."""
from google.protobuf import any_pb2

DETAILS_KEY = 'grpc-status-details-bin'


class StatusMismatch(Exception):
    """The trailer disagrees with the call's own status: a protocol failure, not an A2A error."""


def decode(protos, error):
    """A failed call (grpc.RpcError) → {code, details, status}; status is None without the trailer."""
    code = error.code()
    out = {'code': code.name, 'details': error.details(), 'status': None}
    raw = [v for k, v in (error.trailing_metadata() or ()) if k == DETAILS_KEY]
    if not raw:
        return out
    status = protos.status.Status.FromString(raw[0])
    if status.code != code.value[0]:
        raise StatusMismatch('Status.code %d but the call ended %s' % (status.code, code.name))
    if status.message != error.details():
        raise StatusMismatch('Status.message %r but grpc-message %r' % (status.message, error.details()))
    decoded = {'code': status.code, 'message': status.message, 'errorInfo': None, 'violations': [], 'otherDetails': []}
    for any_ in status.details:
        if any_.Is(protos.details.ErrorInfo.DESCRIPTOR):
            info = protos.details.ErrorInfo()
            any_.Unpack(info)
            decoded['errorInfo'] = {'reason': info.reason, 'domain': info.domain, 'metadata': dict(info.metadata)}
        elif any_.Is(protos.details.BadRequest.DESCRIPTOR):
            bad = protos.details.BadRequest()
            any_.Unpack(bad)
            decoded['violations'] += [{'field': v.field, 'description': v.description} for v in bad.field_violations]
        else:
            decoded['otherDetails'].append(any_.type_url)
    out['status'] = decoded
    return out


def encode(protos, code, message, reason, metadata=None, violations=()):
    """The trailer's bytes for an A2A error: Status{code, message, [ErrorInfo, BadRequest?]}."""
    info = protos.details.ErrorInfo(reason=reason, domain='a2a-protocol.org', metadata=metadata or {})
    details = [info]
    if violations:
        details.append(protos.details.BadRequest(field_violations=[protos.details.BadRequest.FieldViolation(field=f, description=d) for f, d in violations]))
    packed = []
    for d in details:
        any_ = any_pb2.Any()
        any_.Pack(d)
        packed.append(any_)
    return protos.status.Status(code=code.value[0], message=message, details=packed).SerializeToString()
