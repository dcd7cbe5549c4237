//! The few OTLP messages catui exports, encoded by hand as protobuf
//! (opentelemetry-proto's `ExportTraceServiceRequest` and
//! `ExportMetricsServiceRequest`, only the fields catui fills). A whole
//! OpenTelemetry SDK, or a protobuf code generator, would cost start-up
//! time and memory for every run, also the great majority with telemetry
//! off; the wire format of these messages is small and stable.
//!
//! Field numbers are those of opentelemetry/proto/{common,resource,trace,
//! metrics}/v1/*.proto; the test decodes the output with the official
//! definitions (crates/cli/tests/suite/telemetry.rs).

/// A protobuf message being written.
#[derive(Default)]
pub struct Buf(Vec<u8>);

const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const LEN: u64 = 2;

impl Buf {
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u64) {
        self.varint((u64::from(field) << 3) | wire);
    }

    pub fn uint(&mut self, field: u32, v: u64) {
        self.key(field, VARINT);
        self.varint(v);
    }

    pub fn int(&mut self, field: u32, v: i64) {
        // int64 is written as its two's complement, as a u64 varint.
        self.uint(field, v as u64);
    }

    pub fn fixed64(&mut self, field: u32, v: u64) {
        self.key(field, FIXED64);
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub fn double(&mut self, field: u32, v: f64) {
        self.fixed64(field, v.to_bits());
    }

    pub fn bytes(&mut self, field: u32, v: &[u8]) {
        self.key(field, LEN);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
    }

    pub fn string(&mut self, field: u32, v: &str) {
        self.bytes(field, v.as_bytes());
    }

    /// A nested message, written by `f`.
    pub fn message(&mut self, field: u32, f: impl FnOnce(&mut Buf)) {
        let mut inner = Buf::default();
        f(&mut inner);
        self.bytes(field, &inner.0);
    }
}

/// An attribute's value (`AnyValue`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Bool(bool),
    Int(i64),
    Double(f64),
}

/// An attribute list (`repeated KeyValue`).
pub type Attrs = Vec<(&'static str, Value)>;

/// Writes `attrs` as repeated `KeyValue` at `field`.
pub fn attributes<K: AsRef<str>>(b: &mut Buf, field: u32, attrs: &[(K, Value)]) {
    for (key, value) in attrs {
        b.message(field, |kv| {
            kv.string(1, key.as_ref());
            kv.message(2, |any| match value {
                Value::Str(s) => any.string(1, s),
                Value::Bool(v) => any.uint(2, u64::from(*v)),
                Value::Int(v) => any.int(3, *v),
                Value::Double(v) => any.double(4, *v),
            });
        });
    }
}

/// One finished span.
#[derive(Debug, Clone)]
pub struct Span {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    pub name: &'static str,
    /// `SpanKind`: 1 internal, 3 client.
    pub kind: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attrs: Attrs,
    /// `Some`: the span ended in error, with this message.
    pub error: Option<String>,
}

/// Who is reporting: the resource's attributes and the scope's name.
pub struct Origin<'a> {
    pub resource: &'a [(String, Value)],
    pub scope: &'static str,
    pub version: &'static str,
}

fn resource(b: &mut Buf, origin: &Origin<'_>) {
    b.message(1, |r| attributes(r, 1, origin.resource));
}

fn scope(b: &mut Buf, origin: &Origin<'_>) {
    b.message(1, |s| {
        s.string(1, origin.scope);
        s.string(2, origin.version);
    });
}

/// An `ExportTraceServiceRequest` with `spans`.
pub fn traces(origin: &Origin<'_>, spans: &[Span]) -> Vec<u8> {
    let mut b = Buf::default();
    b.message(1, |rs| {
        resource(rs, origin);
        rs.message(2, |ss| {
            scope(ss, origin);
            for span in spans {
                ss.message(2, |s| span_fields(s, span));
            }
        });
    });
    b.into_bytes()
}

fn span_fields(s: &mut Buf, span: &Span) {
    s.bytes(1, &span.trace_id);
    s.bytes(2, &span.span_id);
    if let Some(parent) = &span.parent {
        s.bytes(4, parent);
    }
    s.string(5, span.name);
    s.uint(6, span.kind);
    s.fixed64(7, span.start_ns);
    s.fixed64(8, span.end_ns.max(span.start_ns));
    attributes(s, 9, &span.attrs);
    // Status: code 1 ok, 2 error (with its message).
    s.message(15, |st| match &span.error {
        Some(message) => {
            st.string(2, message);
            st.uint(3, 2);
        }
        None => st.uint(3, 1),
    });
}

/// One point of a cumulative sum.
#[derive(Debug, Clone)]
pub struct Point {
    pub attrs: Attrs,
    pub value: Number,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    Double(f64),
}

/// A monotonic cumulative sum (a counter) and its points.
#[derive(Debug, Clone)]
pub struct Counter {
    pub name: &'static str,
    pub description: &'static str,
    pub unit: &'static str,
    pub points: Vec<Point>,
}

/// An `ExportMetricsServiceRequest` with `counters`, counted from
/// `start_ns` to `now_ns`.
pub fn metrics(origin: &Origin<'_>, counters: &[Counter], start_ns: u64, now_ns: u64) -> Vec<u8> {
    let mut b = Buf::default();
    b.message(1, |rm| {
        resource(rm, origin);
        rm.message(2, |sm| {
            scope(sm, origin);
            for counter in counters {
                sm.message(2, |m| {
                    m.string(1, counter.name);
                    m.string(2, counter.description);
                    m.string(3, counter.unit);
                    // Sum: points, temporality 2 (cumulative), monotonic.
                    m.message(7, |sum| {
                        for point in &counter.points {
                            sum.message(1, |p| {
                                p.fixed64(2, start_ns);
                                p.fixed64(3, now_ns);
                                match point.value {
                                    Number::Double(v) => p.double(4, v),
                                    // as_int is sfixed64: the same eight bytes.
                                    Number::Int(v) => p.fixed64(6, v as u64),
                                }
                                attributes(p, 7, &point.attrs);
                            });
                        }
                        sum.uint(2, 2);
                        sum.uint(3, 1);
                    });
                });
            }
        });
    });
    b.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_keys_are_protobufs() {
        let mut b = Buf::default();
        b.uint(1, 150);
        assert_eq!(b.into_bytes(), [0x08, 0x96, 0x01]);
        let mut b = Buf::default();
        b.int(3, -1);
        assert_eq!(b.into_bytes().len(), 11);
        let mut b = Buf::default();
        b.message(2, |m| m.string(1, "testing"));
        assert_eq!(
            b.into_bytes(),
            [0x12, 9, 0x0a, 7, b't', b'e', b's', b't', b'i', b'n', b'g']
        );
    }
}
