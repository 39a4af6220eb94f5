//! The HTML report: its charts parsed (each plot present, axes labelled, one mark per sample,
//! drawn from the same report the JSON holds), the comparison page, and a real browser's
//! rendering of a page (not blank, the plot titles in the rendered DOM).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn handoff() -> Command {
    Command::cargo_bin("handoff").expect("binary built")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A quick run of two streams, a batch-emulated row and a ping-pong, saved as JSON (with the
/// given file name), and the same report rendered as HTML by `show`.
fn report(name: &str) -> (Value, String) {
    let json = scratch(&format!("{name}.json"));
    handoff()
        .args([
            "run",
            "--no-store",
            "--no-probes",
            "--quiet",
            "--samples",
            "4",
            "--warmup",
            "0",
        ])
        .args([
            "-t",
            "rtrb,crossbeam-bounded,ringbuf",
            "-w",
            "spsc,ping-pong",
        ])
        .args([
            "--messages",
            "20000",
            "--batch",
            "none",
            "--format",
            "json",
            "--out",
        ])
        .arg(&json)
        .assert()
        .success();
    let html = handoff()
        .args(["show", "--format", "html"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        html.status.success(),
        "{}",
        String::from_utf8_lossy(&html.stderr)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, String::from_utf8(html.stdout).unwrap())
}

/// Every `<svg>…</svg>` of a page, parsed.
fn charts(page: &str) -> Vec<String> {
    page.split("<svg ")
        .skip(1)
        .map(|rest| {
            format!(
                "<svg {}",
                &rest[..rest.find("</svg>").unwrap() + "</svg>".len()]
            )
        })
        .collect()
}

fn has_class(n: &roxmltree::Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|x| x == class))
}

fn count(doc: &roxmltree::Document, tag: &str, class: &str) -> usize {
    doc.descendants()
        .filter(|n| n.has_tag_name(tag) && has_class(n, class))
        .count()
}

fn texts(doc: &roxmltree::Document, class: &str) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text") && has_class(n, class))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn each_table_is_charted_from_the_stored_samples() {
    let (report, page) = report("run");
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Self-contained: no script, nothing fetched.
    assert!(!page.contains("<script"));
    assert!(
        !page.contains("http://")
            || page.matches("http://").count()
                == page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(!page.contains("https://"));
    // The environment, limits line and every lint are on the page.
    assert!(page.contains("<dt>environment</dt>"));
    assert!(page.contains("<dt>limits</dt>"));
    for r in report["results"].as_array().unwrap() {
        for l in r["lints"].as_array().unwrap() {
            // A row's lints by code in its lints column, a lint every result has in the
            // header (`debug build: …`).
            let code = l["code"].as_str().or(l.as_str()).unwrap_or_default();
            let spoken = format!("{}:", code.replace('-', " "));
            assert!(
                page.contains(code) || page.contains(&spoken),
                "lint {code} missing"
            );
        }
    }
    let results = report["results"].as_array().unwrap();
    let streams: Vec<&Value> = results.iter().filter(|r| r["workload"] == "spsc").collect();
    let pings: Vec<&Value> = results
        .iter()
        .filter(|r| r["workload"] == "ping-pong")
        .collect();
    let svgs = charts(&page);
    assert_eq!(svgs.len(), 2, "a throughput chart and a percentile chart");
    for svg in &svgs {
        let doc = roxmltree::Document::parse(svg).expect("each chart is well-formed SVG");
        let root = doc.root_element();
        assert!(root.attribute("aria-label").is_some_and(|t| !t.is_empty()));
        assert!(!texts(&doc, "axis-label").is_empty(), "axes are labelled");
        assert!(texts(&doc, "tick").len() >= 3, "the axis has ticks");
        if has_class(&root, "throughput") {
            // One mark per timed sample of every stream result, and a row label each.
            let samples: usize = streams
                .iter()
                .map(|r| r["samples"].as_array().unwrap().len())
                .sum();
            assert_eq!(count(&doc, "circle", "sample"), samples);
            assert_eq!(count(&doc, "line", "median"), streams.len());
            let labels = texts(&doc, "label");
            for r in &streams {
                let t = r["transport"].as_str().unwrap();
                assert!(labels.iter().any(|l| l.starts_with(t)), "{t} has a row");
            }
        } else {
            assert!(has_class(&root, "percentiles"), "{svg}");
            // Five percentiles per ping-pong result, a line each.
            assert_eq!(count(&doc, "circle", "percentile"), 5 * pings.len());
            assert!(count(&doc, "polyline", "series") >= pings.len());
            assert_eq!(
                texts(&doc, "tick")
                    .iter()
                    .filter(|t| t.starts_with('p'))
                    .count(),
                5
            );
        }
    }
}

#[test]
fn a_comparison_page_charts_each_change_with_its_interval() {
    let (_, _) = report("before");
    let (_, _) = report("after");
    let out = handoff()
        .args(["compare", "--format", "html"])
        .arg(scratch("before.json"))
        .arg(scratch("after.json"))
        .output()
        .unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svgs = charts(&page);
    assert_eq!(svgs.len(), 1);
    let doc = roxmltree::Document::parse(&svgs[0]).unwrap();
    let rows = page.matches("<tr class=").count();
    assert!(rows > 0);
    assert_eq!(
        count(&doc, "circle", "change"),
        rows,
        "a mark per compared figure"
    );
    assert!(!texts(&doc, "axis-label").is_empty());
}

/// Renders `page` with headless Chromium: the screenshot and the rendered DOM.
fn render(page: &Path, png: &Path) -> String {
    let browser = ["chromium-headless-shell", "chromium"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok()
        })
        .expect("headless Chromium is installed (scripts/install-browser)");
    let profile = scratch("chromium-profile");
    let common = |cmd: &mut std::process::Command| {
        cmd.args(["--headless", "--no-sandbox", "--disable-gpu"])
            .arg(format!("--user-data-dir={}", profile.display()));
    };
    let mut shot = std::process::Command::new(browser);
    common(&mut shot);
    let status = shot
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1100,900")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut dom = std::process::Command::new(browser);
    common(&mut dom);
    let out = dom
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
#[ignore = "needs headless Chromium: scripts/install-browser (the test command runs it)"]
fn a_browser_renders_the_page_with_its_plots() {
    let (_, page) = report("browser");
    let file = scratch("report.html");
    std::fs::write(&file, &page).unwrap();
    let png_path = scratch("report.png");
    let dom = render(&file, &png_path);
    for title in ["Throughput: spsc", "Latency percentiles: ping-pong"] {
        assert!(dom.contains(title), "{title} not in the rendered DOM");
    }
    // Not blank: the screenshot has ink (dark pixels of text and marks) and colour (the marks).
    let decoder = png::Decoder::new(std::fs::File::open(&png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let dark = pixels
        .iter()
        .filter(|p| p[..3].iter().all(|&c| c < 100))
        .count();
    let blue = pixels
        .iter()
        .filter(|p| p[2] > 140 && p[0] < 100 && p[1] < 150)
        .count();
    assert!(
        dark > pixels.len() / 500,
        "text is drawn ({dark} dark pixels)"
    );
    assert!(blue > 50, "the sample marks are drawn ({blue} blue pixels)");
}

#[test]
fn a_swept_capacity_is_charted_one_line_per_transport() {
    let out = handoff()
        .args([
            "run",
            "--no-store",
            "--no-probes",
            "--quiet",
            "--samples",
            "2",
            "--warmup",
            "0",
        ])
        .args([
            "-t",
            "rtrb,crossbeam-bounded",
            "-w",
            "spsc",
            "--capacity",
            "64,1024,8192",
        ])
        .args(["--messages", "20000", "--format", "html"])
        .output()
        .unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    let sweep: Vec<String> = charts(&page)
        .into_iter()
        .filter(|s| s.contains("class=\"chart sweep\""))
        .collect();
    assert_eq!(sweep.len(), 1, "one chart: throughput against capacity");
    let doc = roxmltree::Document::parse(&sweep[0]).unwrap();
    assert_eq!(count(&doc, "polyline", "series"), 2);
    assert_eq!(count(&doc, "circle", "point"), 6);
    assert!(texts(&doc, "axis-label")
        .iter()
        .any(|t| t.starts_with("capacity")));
    assert!(page.contains("<figcaption>Throughput against capacity"));
}

#[test]
fn the_history_page_follows_each_result_over_the_runs_with_their_notes() {
    let store = scratch("history.sqlite");
    let _ = std::fs::remove_file(&store);
    for note in ["first", "second"] {
        handoff()
            .args([
                "run",
                "--no-probes",
                "--quiet",
                "--samples",
                "2",
                "--warmup",
                "0",
            ])
            .args([
                "-t",
                "rtrb,crossbeam-bounded",
                "-w",
                "spsc",
                "--messages",
                "20000",
            ])
            .args(["--note", note, "--store"])
            .arg(&store)
            .assert()
            .success();
    }
    let out = handoff()
        .args(["history", "--format", "html", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    let trend: Vec<String> = charts(&page)
        .into_iter()
        .filter(|s| s.contains("class=\"chart trend\""))
        .collect();
    assert_eq!(trend.len(), 1, "{page}");
    let doc = roxmltree::Document::parse(&trend[0]).unwrap();
    assert_eq!(count(&doc, "polyline", "series"), 2);
    assert_eq!(count(&doc, "circle", "point"), 4);
    let notes = texts(&doc, "note");
    assert!(notes.iter().any(|n| n.contains("first")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("second")), "{notes:?}");
}

/// A soak from the command line (`--duration`, `--window`): its windows in the JSON, a table of
/// them under the terminal table, and a latency-over-time chart with one point per window in
/// the HTML report, all from the same stored report.
#[test]
fn a_soak_shows_its_windows_as_a_table_and_latency_over_time() {
    let json = scratch("soak.json");
    handoff()
        .args(["run", "--no-store", "--no-probes", "--quiet"])
        .args(["-t", "crossbeam-bounded", "-w", "paced", "--rate", "2000"])
        .args([
            "--duration",
            "2s",
            "--window",
            "250ms",
            "--samples",
            "1",
            "--warmup",
            "0",
        ])
        .args(["--format", "json", "--out"])
        .arg(&json)
        .assert()
        .success();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let r = &report["results"][0];
    assert_eq!(r["verdict"], "pass");
    let windows = r["samples"][0]["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 8);
    let delivered: u64 = windows
        .iter()
        .map(|w| w["delivered"].as_u64().unwrap())
        .sum();
    assert_eq!(delivered, 4000);
    let fired = windows
        .iter()
        .filter(|w| w["fired"].as_u64() > Some(0))
        .count();

    let table = handoff().arg("show").arg(&json).output().unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("soak of crossbeam-bounded: 8 windows of 0.25 s"),
        "{text}"
    );
    assert!(
        text.contains("delivered/s") && text.contains("backlog"),
        "{text}"
    );

    let html = handoff()
        .args(["show", "--format", "html"])
        .arg(&json)
        .output()
        .unwrap();
    let page = String::from_utf8_lossy(&html.stdout);
    let chart = page
        .split("<svg")
        .find(|s| s.contains("class=\"chart soak\""))
        .expect("a latency-over-time chart");
    assert!(chart.contains("Latency over time"), "{chart}");
    assert_eq!(
        chart.matches("<circle").count(),
        fired,
        "one point per timed window"
    );
    assert!(
        page.contains("<details class=\"soak\">"),
        "the windows as a table"
    );
}
