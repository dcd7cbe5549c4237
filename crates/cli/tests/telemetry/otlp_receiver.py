"""A real OTLP/HTTP receiver for crates/cli/tests/suite/telemetry.rs.

Listens on 127.0.0.1 (a free port, printed as the first line of stdout),
takes POST /v1/traces and /v1/metrics with protobuf bodies, decodes them
with the official OpenTelemetry definitions (opentelemetry-proto from
PyPI) and appends each as one JSON line to the file named by argv[1]:
{"path": ..., "content_type": ..., "headers": {...}, "body": <the request
as protobuf's JSON mapping>}. A body that does not decode is answered 400
and recorded with "error". Runs until killed.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

OUT = sys.argv[1]
KINDS = {
    "/v1/traces": (
        trace_service_pb2.ExportTraceServiceRequest,
        trace_service_pb2.ExportTraceServiceResponse,
    ),
    "/v1/metrics": (
        metrics_service_pb2.ExportMetricsServiceRequest,
        metrics_service_pb2.ExportMetricsServiceResponse,
    ),
}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        record = {
            "path": self.path,
            "content_type": self.headers.get("content-type"),
            "headers": {k.lower(): v for k, v in self.headers.items()},
        }
        status, answer = 404, b""
        if self.path in KINDS:
            request_type, response_type = KINDS[self.path]
            try:
                request = request_type()
                request.ParseFromString(body)
                # Every byte must be a field the definitions know: dropping
                # unknown fields and writing the message again gives the
                # same length only when there were none.
                request.DiscardUnknownFields()
                if len(request.SerializeToString()) != len(body):
                    raise ValueError("fields the OTLP definitions do not have")
                record["body"] = MessageToDict(request)
                status, answer = 200, response_type().SerializeToString()
            except Exception as e:  # noqa: BLE001 - recorded for the test
                record["error"] = repr(e)
                status = 400
        with open(OUT, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        self.send_response(status)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
