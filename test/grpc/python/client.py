"""A gRPC client of lf.a2a.v1.A2AService on grpcio (gRPC's C core), driven by JSON lines.

    python3 client.py HOST:PORT

Each stdin line is one call, run on a thread of its own (so a stream and a cancel can overlap):
    {"id": 1, "rpc": "SendMessage", "request": {...ProtoJSON...}, "metadata": [["a2a-version", "1.0"]],
     "timeout": 2.5, "gzip": true}
(timeout: the call's deadline in seconds; gzip: the request message compressed, grpc-encoding gzip)
Each stdout line answers one: a unary call's {"id", "ok": true, "response"}, a stream's
{"id", "event"} per message then {"id", "ok": true}, and a failed call's
{"id", "ok": false, "code": "NOT_FOUND", "details", "status": {code, message, errorInfo, violations} | null}.
Messages are written and read as ProtoJSON (json_format), so the caller sees what this stack sent
and decoded. Exits 0 after stdin ends and every call answered; non-zero on anything that is not an
answer from the server (bad input, a protoc failure, a trailer that contradicts the call's status),
saying why on stderr.
"""
import json
import sys
import threading

import grpc
from google.protobuf import json_format

import a2a_protos
import rpc_status
from json_lines import emit

failures = []


def to_json(message):
    return json_format.MessageToDict(message)


def run(channel, protos, call):
    ident = call['id']
    try:
        m = a2a_protos.method(protos, call['rpc'])
        request = json_format.ParseDict(call.get('request', {}), m.request())
        kwargs = {'metadata': [tuple(kv) for kv in call.get('metadata', [])], 'timeout': call.get('timeout')}
        if call.get('gzip'):
            kwargs['compression'] = grpc.Compression.Gzip
        if m.streaming:
            stub = channel.unary_stream(m.path, request_serializer=m.request.SerializeToString, response_deserializer=m.response.FromString)
            for event in stub(request, **kwargs):
                emit({'id': ident, 'event': to_json(event)})
            emit({'id': ident, 'ok': True})
        else:
            stub = channel.unary_unary(m.path, request_serializer=m.request.SerializeToString, response_deserializer=m.response.FromString)
            emit({'id': ident, 'ok': True, 'response': to_json(stub(request, **kwargs))})
    except grpc.RpcError as error:
        try:
            emit({'id': ident, 'ok': False, **rpc_status.decode(protos, error)})
        except Exception as e:  # a contradictory trailer is this script's failure
            failures.append('call %s (%s): %s: %s' % (ident, call.get('rpc'), type(e).__name__, e))
            emit({'id': ident, 'fatal': str(e)})
    except Exception as e:
        failures.append('call %s (%s): %s: %s' % (ident, call.get('rpc'), type(e).__name__, e))
        emit({'id': ident, 'fatal': '%s: %s' % (type(e).__name__, e)})


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: client.py HOST:PORT')
    protos = a2a_protos.load()
    threads = []
    with grpc.insecure_channel(sys.argv[1]) as channel:
        emit({'ready': True, 'grpcio': grpc.__version__})
        for line in sys.stdin:
            if line.strip():
                t = threading.Thread(target=run, args=(channel, protos, json.loads(line)))
                t.start()
                threads.append(t)
        for t in threads:
            t.join()
    if failures:
        sys.exit('python client failed:\n' + '\n'.join(failures))


if __name__ == '__main__':
    main()
