//! TLS and credentials against the real test server (`scripts/postgres-for-tests`): it speaks
//! TLS with a certificate for `db.handoff.invalid` signed by a throwaway CA, has a role that
//! needs a password (`handoff_pw`) and one that needs a password over TLS only
//! (`handoff_tls`). `scripts/test` passes the server's URL in `HANDOFF_TEST_POSTGRES` and the
//! directory with the CA's certificate and the password in `HANDOFF_TEST_POSTGRES_TLS`.

use handoff_store::connection::Connection;
use handoff_store::postgres::Postgres;
use handoff_store::value::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The test server: its port, the CA certificate, the roles' password.
struct Server {
    port: u16,
    ca: PathBuf,
    password: String,
}

fn server() -> Server {
    let base = std::env::var("HANDOFF_TEST_POSTGRES")
        .expect("HANDOFF_TEST_POSTGRES names a PostgreSQL server (scripts/test starts one)");
    let tls = PathBuf::from(
        std::env::var_os("HANDOFF_TEST_POSTGRES_TLS")
            .expect("HANDOFF_TEST_POSTGRES_TLS names the test server's tls directory"),
    );
    let port = base
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("the test URL has a port");
    Server {
        port,
        ca: tls.join("ca.crt"),
        password: std::fs::read_to_string(tls.join("password"))
            .expect("the test server's password")
            .trim()
            .to_string(),
    }
}

/// A new database on the test server, owned by `owner`.
fn database(owner: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let base = std::env::var("HANDOFF_TEST_POSTGRES").unwrap();
    let name = format!(
        "handoff_tls_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("test server");
    admin
        .batch_execute(&format!("CREATE DATABASE {name} OWNER {owner}"))
        .unwrap();
    name
}

/// An environment with only these variables.
fn env(vars: Vec<(&'static str, OsString)>) -> impl Fn(&str) -> Option<OsString> {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    }
}

/// Whether the session is encrypted, and with what, from the server's own view.
fn encryption(pg: &Postgres) -> (String, String) {
    let rows = pg
        .query(
            "SELECT ssl::text, COALESCE(version, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap();
    match &rows[0].0[..] {
        [Value::Text(ssl), Value::Text(version)] => (ssl.clone(), version.clone()),
        other => panic!("unexpected row {other:?}"),
    }
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn require_connects_encrypted_and_verify_ca_checks_the_chain_only() {
    let s = server();
    let db = database("handoff_tls");
    let pw = || vec![("PGPASSWORD", OsString::from(&s.password))];
    let url = format!(
        "postgres://handoff_tls@127.0.0.1:{}/{db}?sslmode=require",
        s.port
    );
    let pg = Postgres::open_with(&url, &env(pw())).expect("require connects");
    let (ssl, version) = encryption(&pg);
    assert_eq!(ssl, "true");
    assert!(version.starts_with("TLS"), "{version}");
    // The default (prefer) encrypts too, when the server offers it.
    let url = format!("postgres://handoff_tls@127.0.0.1:{}/{db}", s.port);
    let pg = Postgres::open_with(&url, &env(pw())).expect("prefer connects");
    assert_eq!(encryption(&pg).0, "true");
    // verify-ca: the certificate is for db.handoff.invalid, but the chain is what counts.
    let url = format!(
        "postgres://handoff_tls@127.0.0.1:{}/{db}?sslmode=verify-ca&sslrootcert={}",
        s.port,
        s.ca.display()
    );
    Postgres::open_with(&url, &env(pw())).expect("verify-ca connects");
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn verify_full_wants_the_name_on_the_certificate() {
    let s = server();
    let db = database("handoff_tls");
    let pw = || vec![("PGPASSWORD", OsString::from(&s.password))];
    let url = format!(
        "postgres://handoff_tls@127.0.0.1:{}/{db}?sslmode=verify-full&sslrootcert={}",
        s.port,
        s.ca.display()
    );
    let e = Postgres::open_with(&url, &env(pw()))
        .err()
        .expect("a certificate for another name is refused");
    let m = e.to_string();
    assert!(!e.is_bad_input(), "{m}");
    assert!(m.contains("certificate") && m.contains("name"), "{m}");
    // The name the certificate is made out to, reached at the loopback address.
    let url = format!(
        "postgres://handoff_tls@db.handoff.invalid:{}/{db}?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={}",
        s.port,
        s.ca.display()
    );
    let pg = Postgres::open_with(&url, &env(pw())).expect("verify-full connects by name");
    assert_eq!(encryption(&pg).0, "true");
    // Another CA than the one that signed it: refused, even by verify-ca.
    let other = tempfile::tempdir().unwrap();
    let other_ca = other.path().join("ca.crt");
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
        .args(["ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"])
        .arg("-keyout")
        .arg(other.path().join("ca.key"))
        .arg("-out")
        .arg(&other_ca)
        .args(["-subj", "/CN=another CA"])
        .output()
        .expect("openssl runs");
    assert!(made.status.success(), "{made:?}");
    let url = format!(
        "postgres://handoff_tls@127.0.0.1:{}/{db}?sslmode=verify-ca&sslrootcert={}",
        s.port,
        other_ca.display()
    );
    let e = Postgres::open_with(&url, &env(pw()))
        .err()
        .expect("an unknown issuer is refused");
    assert!(e.to_string().contains("certificate"), "{e}");
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn without_tls_a_server_that_demands_it_refuses_and_the_password_stays_hidden() {
    let s = server();
    let db = database("handoff_tls");
    let url = format!(
        "postgres://handoff_tls:{}@127.0.0.1:{}/{db}?sslmode=disable",
        s.password, s.port
    );
    let e = Postgres::open_with(&url, &env(vec![]))
        .err()
        .expect("refused without TLS");
    let m = e.to_string();
    assert!(!e.is_bad_input(), "{m}");
    assert!(m.contains("no encryption"), "{m}");
    assert!(m.contains("handoff_tls:***@"), "{m}");
    assert!(!m.contains(&s.password), "{m}");
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn a_pgpass_entry_gives_the_password() {
    let s = server();
    let db = database("handoff_pw");
    let home = tempfile::tempdir().unwrap();
    let url = format!("postgres://handoff_pw@127.0.0.1:{}/{db}", s.port);
    let home_only = || vec![("HOME", home.path().as_os_str().to_owned())];
    // No password anywhere: the server's refusal is the reason.
    let e = Postgres::open_with(&url, &env(home_only()))
        .err()
        .expect("no password, no connection");
    assert!(e.to_string().contains("password"), "{e}");
    let pgpass = home.path().join(".pgpass");
    std::fs::write(
        &pgpass,
        format!("127.0.0.1:{}:{db}:handoff_pw:{}\n", s.port, s.password),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let pg = Postgres::open_with(&url, &env(home_only())).expect("~/.pgpass gives the password");
    pg.query("SELECT 1", &[]).unwrap();
    // The URL's passfile, somewhere else.
    let elsewhere = home.path().join("elsewhere");
    std::fs::rename(&pgpass, &elsewhere).unwrap();
    let url = format!("{url}?passfile={}", elsewhere.display());
    Postgres::open_with(&url, &env(home_only())).expect("passfile= gives the password");
}
