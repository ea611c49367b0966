//! The client side of the server's access control: the bearer tokens (`--worker-token`,
//! `--client-token` on the server), an interceptor that adds `authorization: Bearer <token>`
//! to every request, and TLS towards a server with `--tls-cert`.

use tonic::Status;
use tonic::metadata::{Ascii, MetadataValue};

/// A bearer token as given (`--token`, `--worker-token`, `--client-token`), unchecked: it is
/// checked ([`check_token`]) where it is used, since a flag parser's error would print it. A
/// secret: its `Debug` shows none of it, so configurations can be printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The token itself.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl From<String> for Token {
    fn from(token: String) -> Self {
        Self(token)
    }
}

impl From<&str> for Token {
    fn from(token: &str) -> Self {
        Self(token.to_owned())
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Adds `authorization: Bearer <token>` to every request; with no token, adds nothing. The
/// header is marked sensitive: its `Debug` hides it, and HTTP/2 never indexes it (RFC 7541
/// section 7.1.3).
#[derive(Debug, Clone, Default)]
pub struct BearerToken(Option<MetadataValue<Ascii>>);

impl BearerToken {
    /// An interceptor for `token` (none: no header).
    ///
    /// # Errors
    /// [`check_token`]'s message.
    pub fn new(token: Option<&Token>) -> Result<Self, String> {
        match token {
            None => Ok(Self(None)),
            Some(t) => {
                check_token(t.secret())?;
                let mut value: MetadataValue<Ascii> = format!("Bearer {}", t.secret())
                    .parse()
                    .map_err(|_| TOKEN_RULE.to_owned())?;
                value.set_sensitive(true);
                Ok(Self(Some(value)))
            }
        }
    }
}

const TOKEN_RULE: &str = "a token must be 1 or more printable ASCII characters without spaces";

/// Checks a bearer token, on either side: 1 or more printable ASCII characters (`!` to `~`),
/// a superset of RFC 6750 section 2.1's `b64token`. Bytes past ASCII can be sent in a header,
/// but the server reads the header as ASCII text, so such a token never matched; control
/// characters and DEL cannot go in a header at all. Space, tab and the empty token are refused
/// by choice: they are not in `b64token`, and whitespace at the end of a header value is
/// malformed in HTTP/2 (RFC 9113 section 8.2.1) and may be stripped on the way.
///
/// # Errors
/// A message saying so (without the token, a secret).
pub fn check_token(token: &str) -> Result<(), String> {
    if !token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(())
    } else {
        Err(TOKEN_RULE.to_owned())
    }
}

impl tonic::service::Interceptor for BearerToken {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

/// The first line of a PEM certificate.
const PEM_CERTIFICATE: &[u8] = b"-----BEGIN CERTIFICATE-----";

/// The endpoint of [`endpoint`] before TLS: checks `url` (`--server`) and whether a CA file
/// is given (`ca_given`, `--tls-ca`) against its scheme, without reading any file; what a
/// `--check-config` checks.
///
/// # Errors
/// As [`endpoint`], but for the CA file's contents.
pub fn check_server_url(url: &str, ca_given: bool) -> Result<tonic::transport::Endpoint, String> {
    let endpoint = tonic::transport::Endpoint::from_shared(url.to_owned())
        .map_err(|e| format!("--server {url:?}: {e}"))?;
    let uri = endpoint.uri();
    if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
        return Err(format!(
            "--server {url:?}: not a server URL; give http://HOST:PORT (or https://HOST:PORT)"
        ));
    }
    match (uri.scheme_str() == Some("https"), ca_given) {
        (true, false) => Err(format!(
            "{url} is https://: give --tls-ca, the PEM CA certificate to verify the server with"
        )),
        (false, true) => Err(format!(
            "--tls-ca is given but {url} is not https://: use https:// (over http the token travels in plain text)"
        )),
        _ => Ok(endpoint),
    }
}

/// An endpoint for the server at `url` (`--server`), not connected yet. With an `https://` URL
/// it verifies the server's certificate against the PEM CA certificate in the file `ca`
/// (`--tls-ca`), expecting `domain` in it (`--tls-domain`; by default the URL's host); with
/// `http://`, no TLS.
///
/// # Errors
/// A message naming the option: a `url` that is not an `http://` or `https://` URL with a
/// host; `https://` without `ca` (there are
/// no built-in roots); `ca` with an `http://` URL (the token would travel in plain text); a
/// `ca` file that cannot be read or holds no PEM certificate.
pub fn endpoint(
    url: &str,
    ca: Option<&std::path::Path>,
    domain: Option<&str>,
) -> Result<tonic::transport::Endpoint, String> {
    let endpoint = check_server_url(url, ca.is_some())?;
    let Some(ca) = ca else {
        return Ok(endpoint);
    };
    let pem = std::fs::read(ca).map_err(|e| format!("--tls-ca {}: {e}", ca.display()))?;
    if !pem
        .windows(PEM_CERTIFICATE.len())
        .any(|w| w == PEM_CERTIFICATE)
    {
        return Err(format!(
            "--tls-ca {}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
            ca.display()
        ));
    }
    let tls = tonic::transport::ClientTlsConfig::new()
        .ca_certificate(tonic::transport::Certificate::from_pem(pem));
    let tls = match domain {
        Some(d) => tls.domain_name(d),
        None => tls,
    };
    endpoint
        .tls_config(tls)
        .map_err(|e| format!("--tls-ca {}: {e}", ca.display()))
}

/// The hint for an error that a client connecting to `url` (`--server`) gets from a server
/// that speaks TLS, when `url` is `http://`: `Internal: h2 protocol error ...`, `Cancelled:
/// operation was canceled` or `Unknown: transport error`, depending on the call and its timing.
/// A plain server that closes the connection before it answers may give the last two as well,
/// hence the "if"; one that breaks it mid-call gives `Unknown: h2 protocol error ...`, no hint.
pub fn tls_hint(status: &Status, url: &str) -> Option<&'static str> {
    let plain = url
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
    let tls_like = match status.code() {
        tonic::Code::Internal => status.message().starts_with("h2 protocol error"),
        tonic::Code::Cancelled => status.message() == "operation was canceled",
        tonic::Code::Unknown => status.message() == "transport error",
        _ => false,
    };
    (plain && tls_like).then_some("if the server uses TLS: an https:// URL and --tls-ca")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The errors an http:// client got from a TLS server (the `solver` commands `status`,
    /// `list`, `health`, `seven solve --server`, `hex check --server`) get the hint; others,
    /// and any with an https:// URL, do not.
    #[test]
    fn a_plain_client_at_a_tls_server_is_told_of_tls() {
        for status in [
            Status::cancelled("operation was canceled"),
            Status::unknown("transport error"),
            Status::internal("h2 protocol error: http2 error"),
        ] {
            assert!(tls_hint(&status, "http://c:1").is_some(), "{status:?}");
            assert_eq!(tls_hint(&status, "https://c:1"), None, "{status:?}");
        }
        for status in [
            Status::unknown("h2 protocol error: error reading a body from connection"),
            Status::unavailable("tcp connect error"),
            Status::cancelled("the problem was cancelled"),
        ] {
            assert_eq!(tls_hint(&status, "http://c:1"), None, "{status:?}");
        }
    }

    #[test]
    fn a_token_is_printable_ascii_without_spaces() {
        for t in ["s3cr3t", "a.b-c_d~e+f/g=", "!\"#$%&'()*,:;<>?@[\\]^`{|}"] {
            assert!(BearerToken::new(Some(&t.into())).is_ok(), "{t}");
        }
        // Empty or with whitespace (refused by choice), past ASCII (never matched), control
        // characters (cannot go in a header).
        for t in [
            "",
            "open sesame",
            " lead",
            "tab\there",
            "s\u{e9}same",
            "nul\0",
            "del\u{7f}",
        ] {
            assert_eq!(
                BearerToken::new(Some(&t.into())).expect_err(t),
                TOKEN_RULE,
                "{t:?}"
            );
        }
    }

    #[test]
    fn a_token_is_never_printed() {
        let token = Token::from("s3cr3t-t0ken");
        let bearer = BearerToken::new(Some(&token)).expect("a valid token");
        for shown in [format!("{token:?}"), format!("{bearer:?}")] {
            assert!(!shown.contains("s3cr3t"), "{shown}");
        }
        assert_eq!(token.secret(), "s3cr3t-t0ken");
    }

    #[test]
    fn a_server_url_is_http_or_https_with_a_host() {
        for url in [
            "http://127.0.0.1:50051",
            "HTTP://localhost:1",
            "http://[::1]:9",
        ] {
            assert!(endpoint(url, None, None).is_ok(), "{url}");
        }
        for url in [
            "127.0.0.1:50051",
            "nonsense",
            "ftp://host:1",
            "http://",
            "/path",
        ] {
            let err = endpoint(url, None, None).expect_err(url);
            assert!(err.starts_with("--server "), "{url}: {err}");
        }
        // TLS follows the scheme, whatever its case: https needs the CA, http refuses one.
        for url in ["https://host:1", "HTTPS://host:1"] {
            let err = endpoint(url, None, None).expect_err(url);
            assert!(err.contains("give --tls-ca"), "{url}: {err}");
        }
        let ca = std::path::Path::new("/nonexistent/ca.pem");
        let err = endpoint("http://host:1", Some(ca), None).expect_err("http with a CA");
        assert!(err.starts_with("--tls-ca is given"), "{err}");
    }
}
