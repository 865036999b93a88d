"""One JSON document per line on stdout, whole even when several threads write (jsonLines.ts reads them)."""
import json
import sys
import threading

_lock = threading.Lock()


def emit(obj):
    with _lock:
        sys.stdout.write(json.dumps(obj) + '\n')
        sys.stdout.flush()
