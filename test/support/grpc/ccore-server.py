"""A gRPC server on the C core (python3-grpcio) for the interop tests: the test service of
test/support/grpc/service.ts (JSON messages) behind a generic handler, so no generated code is needed,
and the health service grpc.health.v1.Health (Check and Watch), its two protobuf messages encoded by
hand: Debian's grpcio ships no grpc_health module.

Usage: /usr/bin/python3 ccore-server.py '{"port": 0, "options": [["grpc.http2.max_ping_strikes", 2]]}'
With "health": false in the config the server has no health service (its calls get UNIMPLEMENTED).

Health status is kept per service name; "" (the whole server) is SERVING at start, every other name is
unknown (Check answers NOT_FOUND, Watch sends SERVICE_UNKNOWN and keeps the stream open). Watch sends
the current status at once and again on every change.

Prints "PORT <n>" once it listens on 127.0.0.1, then one line per event. Reads commands on stdin:
"health <service|-> <SERVING|NOT_SERVING|SERVICE_UNKNOWN>" sets the status of a service ("-" is the
empty name; SERVICE_UNKNOWN forgets the name), pushes it to the open Watch streams of that name and
prints "HEALTH <service|-> <STATUS>";
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


# grpc.health.v1: HealthCheckRequest { string service = 1; }, HealthCheckResponse { ServingStatus
# status = 1; }. Only field 1 matters; other fields are skipped by their wire type.
SERVING_STATUS = {"UNKNOWN": 0, "SERVING": 1, "NOT_SERVING": 2, "SERVICE_UNKNOWN": 3}
health_status = {"": "SERVING"}
health_changed = threading.Condition()


def read_varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def write_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_service(data):
    """The service name (field 1, length-delimited) of a HealthCheckRequest."""
    at, service = 0, ""
    while at < len(data):
        key, at = read_varint(data, at)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, at = read_varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            length, at = read_varint(data, at)
            if field == 1:
                service = data[at : at + length].decode("utf-8")
            at += length
        else:
            raise ValueError("unsupported wire type %d" % wire)
    return service


def encode_status(name):
    """A HealthCheckResponse; UNKNOWN (0) is the default, sent as no field, as protobuf does."""
    value = SERVING_STATUS[name]
    return b"\x08" + write_varint(value) if value != 0 else b""


def health_check(request, context):
    service = decode_service(request)
    say("CALL Check %s" % (service or "-"))
    with health_changed:
        status = health_status.get(service)
    if status is None:
        context.abort(grpc.StatusCode.NOT_FOUND, "unknown service %r" % service)
    return encode_status(status)


def health_watch(request, context):
    service = decode_service(request)
    say("CALL Watch %s" % (service or "-"))
    sent = None
    while context.is_active() and not done.is_set():
        with health_changed:
            status = health_status.get(service, "SERVICE_UNKNOWN")
            if status == sent:
                health_changed.wait(0.05)
                continue
        sent = status
        yield encode_status(status)


def set_health(service, status):
    with health_changed:
        if status == "SERVICE_UNKNOWN":
            health_status.pop(service, None)
        else:
            health_status[service] = status
        health_changed.notify_all()


handlers = [
    grpc.method_handlers_generic_handler(
        "redialer.test.Test",
        {
            "Echo": grpc.unary_unary_rpc_method_handler(echo),
            "Count": grpc.unary_stream_rpc_method_handler(count),
        },
    )
]
if config.get("health", True):
    handlers.append(
        grpc.method_handlers_generic_handler(
            "grpc.health.v1.Health",
            {
                "Check": grpc.unary_unary_rpc_method_handler(health_check),
                "Watch": grpc.unary_stream_rpc_method_handler(health_watch),
            },
        )
    )

server = grpc.server(
    # Each open Watch or held Count holds a worker.
    futures.ThreadPoolExecutor(max_workers=16),
    handlers=handlers,
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
    if len(words) == 3 and words[0] == "health" and words[2] in ("SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"):
        set_health("" if words[1] == "-" else words[1], words[2])
        say("HEALTH %s %s" % (words[1], words[2]))
    elif words:
        say("ERROR unknown command %r" % line.strip())
server.stop(grace).wait()
done.set()
say("STOPPED")
