//! Percent-decoding (`%20` → a space), for the few places catui reads
//! text that arrives encoded: `file://` links a terminal pastes and the
//! values of `OTEL_EXPORTER_OTLP_HEADERS`. A `%` not followed by two hex
//! digits stays as it is.

/// The bytes `text` stands for.
pub fn decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn escapes_are_decoded_and_a_stray_percent_is_kept() {
        assert_eq!(decode("a%20b%2Fc"), b"a b/c");
        assert_eq!(decode("100%"), b"100%");
        assert_eq!(decode("%zz%4"), b"%zz%4");
        assert_eq!(decode("%C3%A9"), "é".as_bytes());
    }
}
