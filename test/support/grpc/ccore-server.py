"""A gRPC server on the C core (python3-grpcio) for the interop tests: the test service of
test/support/grpc/service.ts (JSON messages) behind a generic handler, so no generated code is needed.

Usage: /usr/bin/python3 ccore-server.py '{"port": 0, "options": [["grpc.http2.max_ping_strikes", 2]]}'

Prints "PORT <n>" once it listens on 127.0.0.1, then one line per event. Reads commands on stdin:
"stop <grace seconds>" stops the server gracefully (GOAWAY, calls in flight may finish) and exits;
end of input (the test process went away) stops it at once.
"""
import json
import sys
import threading
from concurrent import futures

import grpc

config = json.loads(sys.argv[1] if len(sys.argv) > 1 else "{}")
done = threading.Event()


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def echo(request, context):
    say("CALL Echo")
    return request


def count(request, context):
    """Streams {"seq": from}, {"seq": from + 1}... up to "to" (exclusive; default from + 3), one every
    "every" seconds (default 0), then ends with OK. Without "to" and with "hold", it sends one message
    and keeps the stream open until the client cancels it or the server stops."""
    message = json.loads(request)
    say("CALL Count")
    seq = message.get("from", 0)
    if message.get("hold"):
        context.send_initial_metadata(())
        yield json.dumps({"seq": seq}).encode()
        while context.is_active() and not done.wait(0.05):
            pass
        return
    end = message.get("to", seq + 3)
    while seq < end and context.is_active():
        yield json.dumps({"seq": seq}).encode()
        seq += 1
        if message.get("every"):
            done.wait(message["every"])


handlers = grpc.method_handlers_generic_handler(
    "redialer.test.Test",
    {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "Count": grpc.unary_stream_rpc_method_handler(count),
    },
)

server = grpc.server(
    futures.ThreadPoolExecutor(max_workers=8),
    handlers=[handlers],
    options=[tuple(option) for option in config.get("options", [])],
)
port = server.add_insecure_port("127.0.0.1:%d" % config.get("port", 0))
if port == 0:
    say("ERROR could not bind")
    sys.exit(1)
server.start()
say("PORT %d" % port)

grace = 0.0
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "stop":
        grace = float(words[1]) if len(words) > 1 else 0.0
        break
server.stop(grace).wait()
done.set()
say("STOPPED")
