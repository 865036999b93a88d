"""A small lf.a2a.v1.A2AService on grpcio (gRPC's C core), for our client to call.

    python3 server.py

Prints {"listening": "127.0.0.1:PORT"} once serving, then one {"call": rpc, "metadata": {...},
"request": {...ProtoJSON...}, "deadline": seconds left | null} line per call it gets; stops when
stdin ends. A call with metadata `x-test-compress: gzip` gets its answer gzip-compressed. Behaviour:
  SendMessage           → a COMPLETED Task whose artifact "echo" holds the message's text
  SendStreamingMessage  → Task SUBMITTED, status WORKING, one artifact chunk, status COMPLETED
  SubscribeToTask       → the task WORKING, then the stream fails INTERNAL (+ ErrorInfo INTERNAL)
  GetTask               → NOT_FOUND, google.rpc.Status + ErrorInfo TASK_NOT_FOUND {taskId} in the trailer
  ListTasks             → pageSize over 100: INVALID_ARGUMENT + ErrorInfo INVALID_PARAMS + BadRequest;
                          else an empty page
  anything else         → UNIMPLEMENTED (grpcio's own answer, no details)
Exits non-zero, saying why on stderr, when a handler failed.
"""
import sys
from concurrent import futures

import grpc
from google.protobuf import json_format

import a2a_protos
import rpc_status
from json_lines import emit

failures = []


def text_of(message):
    return ''.join(p.text for p in message.parts)


def task_json(request, state):
    message = request.message
    return {
        'id': message.task_id or 'py-task-' + message.message_id,
        'contextId': message.context_id or 'py-ctx',
        'status': {'state': state, 'timestamp': '2026-01-02T03:04:05.678Z'},
    }


def send_message(protos, request, _context):
    task = task_json(request, 'TASK_STATE_COMPLETED')
    task['artifacts'] = [{'artifactId': 'py-echo', 'name': 'echo', 'parts': [{'text': text_of(request.message)}]}]
    task['history'] = [json_format.MessageToDict(request.message)]
    return json_format.ParseDict({'task': task}, protos.a2a.SendMessageResponse())


def send_streaming_message(protos, request, _context):
    task = task_json(request, 'TASK_STATE_SUBMITTED')
    ids = {'taskId': task['id'], 'contextId': task['contextId']}
    events = [
        {'task': task},
        {'statusUpdate': {**ids, 'status': {'state': 'TASK_STATE_WORKING'}}},
        {'artifactUpdate': {**ids, 'artifact': {'artifactId': 'py-echo', 'parts': [{'text': 'py ' + text_of(request.message)}]}, 'lastChunk': True}},
        {'statusUpdate': {**ids, 'status': {'state': 'TASK_STATE_COMPLETED'}}},
    ]
    for event in events:
        yield json_format.ParseDict(event, protos.a2a.StreamResponse())


def subscribe_to_task(protos, request, context):
    yield protos.a2a.StreamResponse(task=protos.a2a.Task(id=request.id, context_id='py-ctx', status=protos.a2a.TaskStatus(state=protos.a2a.TASK_STATE_WORKING)))
    fail(protos, context, grpc.StatusCode.INTERNAL, 'the agent failed mid-stream', reason='INTERNAL', metadata={'taskId': request.id})


def fail(protos, context, code, message, **error):
    context.set_trailing_metadata([(rpc_status.DETAILS_KEY, rpc_status.encode(protos, code, message, **error))])
    context.abort(code, message)


def get_task(protos, request, context):
    fail(protos, context, grpc.StatusCode.NOT_FOUND, 'Task not found: ' + request.id, reason='TASK_NOT_FOUND', metadata={'taskId': request.id})


def list_tasks(protos, request, context):
    if request.page_size > 100:
        fail(protos, context, grpc.StatusCode.INVALID_ARGUMENT, 'pageSize: must be between 1 and 100', reason='INVALID_PARAMS', violations=[('pageSize', 'must be between 1 and 100')])
    return protos.a2a.ListTasksResponse(page_size=request.page_size or 50)


HANDLERS = {
    'SendMessage': send_message,
    'SendStreamingMessage': send_streaming_message,
    'SubscribeToTask': subscribe_to_task,
    'GetTask': get_task,
    'ListTasks': list_tasks,
}


def handler(protos, rpc, fn):
    m = a2a_protos.method(protos, rpc)

    def record(request, context, e=None):
        if e is None:
            metadata = dict(context.invocation_metadata())
            remaining = context.time_remaining()  # huge without a deadline
            emit({'call': rpc, 'metadata': metadata, 'request': json_format.MessageToDict(request), 'deadline': remaining if remaining < 86400 else None})
            if metadata.get('x-test-compress') == 'gzip':
                context.set_compression(grpc.Compression.Gzip)
        elif context.code() is None:  # not our own abort
            failures.append('%s: %s: %s' % (rpc, type(e).__name__, e))

    def unary(request, context):
        record(request, context)
        try:
            return fn(protos, request, context)
        except Exception as e:
            record(request, context, e)
            raise

    def streaming(request, context):
        record(request, context)
        try:
            yield from fn(protos, request, context)
        except Exception as e:
            record(request, context, e)
            raise

    if m.streaming:
        return grpc.unary_stream_rpc_method_handler(streaming, request_deserializer=m.request.FromString, response_serializer=m.response.SerializeToString)
    return grpc.unary_unary_rpc_method_handler(unary, request_deserializer=m.request.FromString, response_serializer=m.response.SerializeToString)


def main():
    protos = a2a_protos.load()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    service = grpc.method_handlers_generic_handler(a2a_protos.SERVICE, {rpc: handler(protos, rpc, fn) for rpc, fn in HANDLERS.items()})
    server.add_generic_rpc_handlers((service,))
    port = server.add_insecure_port('127.0.0.1:0')
    server.start()
    emit({'listening': '127.0.0.1:%d' % port, 'grpcio': grpc.__version__})
    sys.stdin.read()
    server.stop(grace=1).wait()
    if failures:
        sys.exit('python server failed:\n' + '\n'.join(failures))


if __name__ == '__main__':
    main()
