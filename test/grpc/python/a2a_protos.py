"""The generated Python modules of proto/ (a2a.proto, google/rpc, google/api), made with protoc into
a temp dir at run time (nothing generated is committed), plus what grpcio's generic API needs for
one rpc of lf.a2a.v1.A2AService: its path, whether it streams, and the request/response classes."""
import atexit
import glob
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from types import SimpleNamespace

from google.protobuf import symbol_database

PROTO_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'proto'))
SERVICE = 'lf.a2a.v1.A2AService'


def load():
    out = tempfile.mkdtemp(prefix='a2a-python-protos-')
    atexit.register(shutil.rmtree, out, True)
    api = sorted(os.path.relpath(p, PROTO_DIR) for p in glob.glob(os.path.join(PROTO_DIR, 'google', 'api', '*.proto')))
    files = ['a2a.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto', *api]
    done = subprocess.run(['protoc', '-I', PROTO_DIR, '--python_out=' + out, *files], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError('protoc failed: ' + done.stderr.strip())
    sys.path.insert(0, out)
    return SimpleNamespace(
        a2a=importlib.import_module('a2a_pb2'),
        status=importlib.import_module('google.rpc.status_pb2'),
        details=importlib.import_module('google.rpc.error_details_pb2'),
    )


def message_class(descriptor):
    return symbol_database.Default().GetSymbol(descriptor.full_name)


def method(protos, rpc):
    """The rpc's gRPC path, server_streaming flag and request/response classes, from the proto."""
    service = protos.a2a.DESCRIPTOR.services_by_name['A2AService']
    desc = service.methods_by_name.get(rpc)
    if desc is None:
        raise KeyError('no rpc %s in %s' % (rpc, SERVICE))
    return SimpleNamespace(
        path='/%s/%s' % (SERVICE, rpc),
        streaming=desc.server_streaming,
        request=message_class(desc.input_type),
        response=message_class(desc.output_type),
    )
