//! TLS to PostgreSQL, with libpq's `sslmode` semantics.
//!
//! The URL's `sslmode` says what a connection demands of TLS, as libpq's does:
//!
//! | `sslmode` | encrypted | server's certificate checked |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (the default) | when the server offers it | no |
//! | `require` | always | no; against the root certificate when one is given |
//! | `verify-ca` | always | signed by the root certificate |
//! | `verify-full` | always | signed by the root certificate, and made out to the host |
//!
//! The root certificate is `sslrootcert=PATH` (PEM; a private CA's), else
//! `~/.postgresql/root.crt` when it exists (libpq's default); `sslrootcert=system` trusts the
//! system's roots and implies `verify-full`, as in libpq. `allow` (try without TLS first) is
//! refused: it is weaker than `prefer` and has no use in a fleet's store.
//!
//! TLS is rustls with the ring provider; SCRAM authentication over it uses channel binding, so
//! a man in the middle cannot relay the password exchange.

use crate::error::StoreError;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// What a connection demands of TLS (libpq's `sslmode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    /// Never encrypted.
    Disable,
    /// Encrypted when the server offers it; its certificate is not checked.
    Prefer,
    /// Always encrypted; the certificate is checked only against a root certificate given.
    Require,
    /// Always encrypted, and the certificate must be signed by the root certificate.
    VerifyCa,
    /// As `VerifyCa`, and the certificate must be made out to the host connected to.
    VerifyFull,
}

impl SslMode {
    /// The mode named in a URL.
    pub fn parse(text: &str) -> Result<SslMode, StoreError> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            "allow" => {
                return Err(StoreError::BadLocation(
                    "sslmode=allow is not supported (it tries without TLS first): use prefer, require, verify-ca or verify-full".into(),
                ))
            }
            other => {
                return Err(StoreError::BadLocation(format!(
                    "unknown sslmode `{other}`: expected disable, prefer, require, verify-ca or verify-full"
                )))
            }
        })
    }
}

/// Where the server's root certificate comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// None given (and no `~/.postgresql/root.crt`).
    None,
    /// A PEM file of one or more certificates.
    File(PathBuf),
    /// The system's trusted roots.
    System,
}

/// The TLS settings of one connection, from its URL and the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    /// What the connection demands.
    pub mode: SslMode,
    /// What the server's certificate is checked against.
    pub root: Root,
}

impl Tls {
    /// The settings from the URL's `sslmode` and `sslrootcert` (each `None` when absent) and
    /// the home directory (for libpq's default root certificate).
    pub fn new(
        sslmode: Option<&str>,
        sslrootcert: Option<&str>,
        home: Option<&Path>,
    ) -> Result<Tls, StoreError> {
        let root = match sslrootcert {
            Some("system") => Root::System,
            Some(path) => Root::File(PathBuf::from(path)),
            None => home
                .map(|h| h.join(".postgresql").join("root.crt"))
                .filter(|p| p.is_file())
                .map_or(Root::None, Root::File),
        };
        let mode = match sslmode {
            Some(m) => SslMode::parse(m)?,
            // libpq: `sslrootcert=system` without a mode means verify-full.
            None if root == Root::System => SslMode::VerifyFull,
            None => SslMode::Prefer,
        };
        if root == Root::System && mode != SslMode::VerifyFull {
            return Err(StoreError::BadLocation(format!(
                "sslrootcert=system needs sslmode=verify-full (it is {}), as in libpq",
                name(mode)
            )));
        }
        if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) && root == Root::None {
            return Err(StoreError::BadLocation(format!(
                "sslmode={} checks the server's certificate against a root certificate: give sslrootcert=PATH in the URL (or put it at ~/.postgresql/root.crt), or sslrootcert=system for the system's trusted roots",
                name(mode)
            )));
        }
        Ok(Tls { mode, root })
    }

    /// The client's `sslmode` on the wire: whether TLS is asked for, and whether it must be had.
    pub fn wire(&self) -> postgres::config::SslMode {
        match self.mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                postgres::config::SslMode::Require
            }
        }
    }

    /// The connector that checks the server's certificate as the mode says (`None` for
    /// `disable`).
    pub fn connector(&self) -> Result<Option<MakeRustlsConnect>, StoreError> {
        if self.mode == SslMode::Disable {
            return Ok(None);
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let check = match (self.mode, &self.root) {
            (SslMode::Prefer, _) | (SslMode::Require, Root::None) => Check::Nothing,
            (SslMode::Require | SslMode::VerifyCa, _) => Check::Chain,
            _ => Check::ChainAndName,
        };
        let chain = match check {
            Check::Nothing => None,
            Check::Chain | Check::ChainAndName => Some(
                WebPkiServerVerifier::builder_with_provider(
                    Arc::new(self.roots()?),
                    provider.clone(),
                )
                .build()
                .map_err(|e| bad_root(&self.root, &e.to_string()))?,
            ),
        };
        let verifier = Arc::new(Verifier {
            check,
            chain,
            provider: provider.clone(),
        });
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| StoreError::BadLocation(format!("TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(Some(MakeRustlsConnect::new(config)))
    }

    /// The root certificates to check against.
    fn roots(&self) -> Result<RootCertStore, StoreError> {
        let mut roots = RootCertStore::empty();
        match &self.root {
            Root::None => {}
            Root::File(path) => {
                let certs = CertificateDer::pem_file_iter(path)
                    .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| bad_root(&self.root, &e.to_string()))?;
                if certs.is_empty() {
                    return Err(bad_root(&self.root, "no PEM certificate in it"));
                }
                for c in certs {
                    roots
                        .add(c)
                        .map_err(|e| bad_root(&self.root, &e.to_string()))?;
                }
            }
            Root::System => {
                let found = rustls_native_certs::load_native_certs();
                let (added, _) = roots.add_parsable_certificates(found.certs);
                if added == 0 {
                    return Err(bad_root(
                        &self.root,
                        "the system has no trusted root certificate",
                    ));
                }
            }
        }
        Ok(roots)
    }
}

/// How much of the server's certificate is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// Nothing (`prefer`, `require` without a root certificate).
    Nothing,
    /// That it leads to the root certificate (`verify-ca`, `require` with one).
    Chain,
    /// That, and that it is made out to the host (`verify-full`).
    ChainAndName,
}

fn name(mode: SslMode) -> &'static str {
    match mode {
        SslMode::Disable => "disable",
        SslMode::Prefer => "prefer",
        SslMode::Require => "require",
        SslMode::VerifyCa => "verify-ca",
        SslMode::VerifyFull => "verify-full",
    }
}

fn bad_root(root: &Root, why: &str) -> StoreError {
    let which = match root {
        Root::File(p) => format!("root certificate {}", p.display()),
        Root::System => "the system's root certificates".to_string(),
        Root::None => "root certificate".to_string(),
    };
    StoreError::BadLocation(format!("cannot use the {which}: {why}"))
}

/// Checks the server's certificate as much as the mode asks ([`Check`]). For a chain, rustls'
/// own verifier; `verify-ca` takes its verdict except a name that does not match (rustls checks
/// the chain before the name, so a name error means the chain held). The handshake's
/// signatures are checked in every mode.
#[derive(Debug)]
struct Verifier {
    check: Check,
    chain: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        let verdict =
            chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now);
        match verdict {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if self.check == Check::Chain => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.provider.signature_verification_algorithms;
        verify_tls12_signature(message, cert, dss, algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.provider.signature_verification_algorithms;
        verify_tls13_signature(message, cert, dss, algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_libpq_and_verification_needs_a_root() {
        let t = Tls::new(None, None, None).unwrap();
        assert_eq!((t.mode, t.root), (SslMode::Prefer, Root::None));
        let t = Tls::new(Some("require"), Some("/ca.pem"), None).unwrap();
        assert_eq!(t.root, Root::File("/ca.pem".into()));
        assert_eq!(t.wire(), postgres::config::SslMode::Require);
        assert_eq!(
            Tls::new(None, Some("system"), None).unwrap().mode,
            SslMode::VerifyFull
        );
        let e = Tls::new(Some("verify-full"), None, None).unwrap_err();
        assert!(
            e.is_bad_input() && e.to_string().contains("sslrootcert=PATH"),
            "{e}"
        );
        let e = Tls::new(Some("require"), Some("system"), None).unwrap_err();
        assert!(e.to_string().contains("verify-full"), "{e}");
        let e = Tls::new(Some("allow"), None, None).unwrap_err();
        assert!(e.to_string().contains("not supported"), "{e}");
        let e = Tls::new(Some("verify_full"), None, None).unwrap_err();
        assert!(
            e.to_string().contains("unknown sslmode `verify_full`"),
            "{e}"
        );
        assert!(Tls::new(Some("disable"), None, None)
            .unwrap()
            .connector()
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_root_file_that_is_missing_or_not_pem_is_named() {
        let t = Tls::new(Some("verify-ca"), Some("/no/such/ca.pem"), None).unwrap();
        let e = t.connector().err().expect("a missing root file is refused");
        assert!(e.to_string().contains("/no/such/ca.pem"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("ca.pem");
        std::fs::write(&f, "not a certificate\n").unwrap();
        let t = Tls::new(Some("verify-ca"), f.to_str(), None).unwrap();
        let e = t
            .connector()
            .err()
            .expect("a file without a certificate is refused");
        assert!(e.to_string().contains("no PEM certificate"), "{e}");
    }

    #[test]
    fn libpqs_default_root_is_used_when_present() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(
            Tls::new(Some("require"), None, Some(home.path()))
                .unwrap()
                .root,
            Root::None
        );
        std::fs::create_dir(home.path().join(".postgresql")).unwrap();
        std::fs::write(home.path().join(".postgresql/root.crt"), "").unwrap();
        assert_eq!(
            Tls::new(Some("require"), None, Some(home.path()))
                .unwrap()
                .root,
            Root::File(home.path().join(".postgresql/root.crt"))
        );
    }
}
