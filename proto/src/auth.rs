//! The client side of the server's access control: the bearer tokens (`--worker-token`,
//! `--client-token` on the server), an interceptor that adds `authorization: Bearer <token>`
//! to every request, and TLS towards a server with `--tls-cert`.

use tonic::Status;
use tonic::metadata::{Ascii, MetadataValue};

/// Adds `authorization: Bearer <token>` to every request; with no token, adds nothing.
#[derive(Debug, Clone, Default)]
pub struct BearerToken(Option<MetadataValue<Ascii>>);

impl BearerToken {
    /// An interceptor for `token` (none: no header).
    ///
    /// # Errors
    /// A message when the token is not printable ASCII.
    pub fn new(token: Option<&str>) -> Result<Self, String> {
        match token {
            None => Ok(Self(None)),
            Some(t) => format!("Bearer {t}")
                .parse()
                .map(|v| Self(Some(v)))
                .map_err(|_| "the token must be printable ASCII".to_owned()),
        }
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

/// The TLS settings of a client that verifies the server's certificate against the PEM CA
/// certificate in the file `ca` (`--tls-ca`), expecting `domain` in it (`--tls-domain`; by
/// default the URL's host).
///
/// # Errors
/// A message naming the file when it cannot be read.
pub fn client_tls(
    ca: &std::path::Path,
    domain: Option<&str>,
) -> Result<tonic::transport::ClientTlsConfig, String> {
    let pem = std::fs::read(ca).map_err(|e| format!("--tls-ca {}: {e}", ca.display()))?;
    let tls = tonic::transport::ClientTlsConfig::new()
        .ca_certificate(tonic::transport::Certificate::from_pem(pem));
    Ok(match domain {
        Some(d) => tls.domain_name(d),
        None => tls,
    })
}
