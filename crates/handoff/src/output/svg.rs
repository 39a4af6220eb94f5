//! A small SVG writer for the HTML report's charts: shapes, text and axes, nothing else.
//!
//! Written by hand rather than with a plotting crate because every chart of the report is a few
//! marks on one or two axes, and because each mark then carries a class and a tooltip (`<title>`)
//! of its own, which the report's tests count and a reader hovers: one mark per sample, an axis
//! with its label, the limit line. Text is SVG `<text>`, laid out by the browser with its own
//! fonts: no font file or C library is needed to draw it.

use std::fmt::Write;

/// Length of a legend's stroke: two periods of the longest dash pattern (`d3`, 17 units).
pub(crate) const LEGEND_STROKE: f64 = 34.0;

/// An SVG document being drawn, in user units (one unit is one CSS pixel at 100%).
pub(crate) struct Svg {
    width: f64,
    height: f64,
    body: String,
}

/// Escapes text for XML content and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut with an ellipsis to fit about `px` pixels of 11-pixel text (an average glyph is
/// about 6.3 pixels wide), so that a long label never runs off the chart.
pub(crate) fn clip(text: &str, px: f64) -> String {
    let max = ((px / 6.3) as usize).max(4);
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let kept: String = text.chars().take(max - 1).collect();
        format!("{kept}…")
    }
}

/// How many hues a chart's series are drawn in: the CSS classes `c0` … `c9` of the page's style
/// (the ten categorical colours of Tableau and matplotlib, chosen to be told apart).
pub(crate) const HUES: usize = 10;

/// How many dash patterns a series line can have: the CSS classes `d0` (solid), `d1` (dashed),
/// `d2` (dotted) and `d3` (dash-dot) of the page's style.
pub(crate) const DASHES: usize = 4;

/// The look of the `i`-th series of a chart, as CSS classes: a hue (`c0` … `c9`) and a dash
/// pattern (`d0` … `d3`). The first ten series are solid lines of ten hues, the next ten dashed,
/// and so on, so that no two of a chart's first `HUES * DASHES` (40) series share both hue and
/// dash. The dash applies to lines only (`.series`), a dot takes the hue.
pub(crate) fn series_look(i: usize) -> String {
    format!("c{} d{}", i % HUES, (i / HUES) % DASHES)
}

/// A number in a coordinate: two decimals are enough on a screen.
fn n(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl Svg {
    /// An empty drawing of `width` × `height`.
    pub fn new(width: f64, height: f64) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
        }
    }

    /// A line segment.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), class: &str) {
        let _ = writeln!(
            self.body,
            r#"<line class="{class}" x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    /// A dot with a tooltip.
    pub(crate) fn dot(&mut self, (x, y): (f64, f64), r: f64, class: &str, tip: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle class="{class}" cx="{}" cy="{}" r="{}"><title>{}</title></circle>"#,
            n(x),
            n(y),
            n(r),
            escape(tip)
        );
    }

    /// A polyline through `points`, with a tooltip.
    pub fn polyline(&mut self, points: &[(f64, f64)], class: &str, tip: &str) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{},{}", n(*x), n(*y)))
            .collect();
        let _ = writeln!(
            self.body,
            r#"<polyline class="{class}" points="{}"><title>{}</title></polyline>"#,
            pts.join(" "),
            escape(tip)
        );
    }

    /// Text anchored at `(x, y)`: `anchor` is `start`, `middle` or `end`.
    pub fn text(&mut self, (x, y): (f64, f64), anchor: &str, class: &str, text: &str) {
        let _ = writeln!(
            self.body,
            r#"<text class="{class}" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#,
            n(x),
            n(y),
            escape(text)
        );
    }

    /// Text turned a quarter counter-clockwise (a vertical axis's label).
    pub(crate) fn vertical_text(&mut self, (x, y): (f64, f64), class: &str, text: &str) {
        let _ = writeln!(
            self.body,
            r#"<text class="{class}" x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">{}</text>"#,
            n(x),
            n(y),
            n(x),
            n(y),
            escape(text)
        );
    }

    /// A vertical axis drawn as grid lines across `x` at `y`'s ticks, each labelled by `label`,
    /// with `caption` written upwards beside them.
    pub(crate) fn y_axis(&mut self, x: &Axis, y: &Axis, caption: &str, label: fn(f64) -> String) {
        for t in y.ticks() {
            self.line((x.from, y.at(t)), (x.to, y.at(t)), "grid");
            self.text((x.from - 6.0, y.at(t) + 4.0), "end", "tick", &label(t));
        }
        self.vertical_text((18.0, (y.from + y.to) / 2.0), "axis-label", caption);
    }

    /// A horizontal axis at height `y` with `x`'s ticks labelled by `label`, and `caption`
    /// under them.
    pub(crate) fn x_axis(&mut self, x: &Axis, y: f64, caption: &str, label: fn(f64) -> String) {
        self.line((x.from, y), (x.to, y), "axis");
        for t in x.ticks() {
            self.line((x.at(t), y), (x.at(t), y + 5.0), "axis");
            self.text((x.at(t), y + 18.0), "middle", "tick", &label(t));
        }
        self.text(
            ((x.from + x.to) / 2.0, y + 38.0),
            "middle",
            "axis-label",
            caption,
        );
    }

    /// Row `row` of a legend whose column starts at `left` and is `width` wide: a stroke of
    /// `stroke`'s style, long enough to show a whole period of every dash pattern, then `text`
    /// (in `class`, clipped to the column).
    pub(crate) fn legend(
        &mut self,
        (left, width): (f64, f64),
        row: usize,
        stroke: &str,
        class: &str,
        text: &str,
    ) {
        let y = 24.0 + 18.0 * row as f64;
        self.line(
            (left + 8.0, y - 4.0),
            (left + LEGEND_STROKE + 8.0, y - 4.0),
            stroke,
        );
        self.text(
            (left + LEGEND_STROKE + 14.0, y),
            "start",
            class,
            &clip(text, width - LEGEND_STROKE - 22.0),
        );
    }

    /// The finished document: `title` names the chart for readers and tests.
    pub fn finish(self, class: &str, title: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{class}\" viewBox=\"0 0 {w} {h}\" \
             width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{t}\">\n<title>{t}</title>\n{body}</svg>\n",
            w = n(self.width),
            h = n(self.height),
            t = escape(title),
            body = self.body
        )
    }
}

/// A numeric axis: maps values in `[lo, hi]` onto `[from, to]` (pixels), linearly or on a
/// logarithmic scale.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    pub from: f64,
    pub to: f64,
}

impl Axis {
    /// An axis covering every value of `values` with some room, logarithmic when they span more
    /// than a factor of 20 (and are all positive), else linear from zero.
    pub(crate) fn fitting(values: impl IntoIterator<Item = f64>, from: f64, to: f64) -> Axis {
        let v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() || !hi.is_finite() {
            return Axis {
                lo: 0.0,
                hi: 1.0,
                log: false,
                from,
                to,
            };
        }
        if lo > 0.0 && hi / lo > 20.0 {
            let (lo, hi) = (
                10f64.powf(lo.log10().floor()),
                10f64.powf(hi.log10().ceil()),
            );
            Axis {
                lo,
                hi,
                log: true,
                from,
                to,
            }
        } else {
            let hi = nice_ceiling(hi.max(f64::MIN_POSITIVE) * 1.05);
            Axis {
                lo: 0.0,
                hi,
                log: false,
                from,
                to,
            }
        }
    }

    /// The pixel position of `v` (clamped to the axis).
    pub fn at(&self, v: f64) -> f64 {
        let f = if self.log {
            let v = v.max(self.lo);
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.from + f.clamp(0.0, 1.0) * (self.to - self.from)
    }

    /// Tick values: powers of ten (and 2 and 5 times them when there is room) on a log axis,
    /// four or five round steps on a linear one.
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            let decades = (self.hi / self.lo).log10().round() as i32;
            let mut t = Vec::new();
            let mut p = self.lo;
            for _ in 0..=decades {
                t.push(p);
                if decades <= 3 {
                    for m in [2.0, 5.0] {
                        if p * m < self.hi {
                            t.push(p * m);
                        }
                    }
                }
                p *= 10.0;
            }
            t
        } else {
            let step = nice_ceiling((self.hi - self.lo) / 5.0);
            let mut t = Vec::new();
            let mut v = self.lo;
            while v <= self.hi * (1.0 + 1e-9) {
                t.push(v);
                v += step;
            }
            t
        }
    }
}

/// The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `v`.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * p >= v {
            return m * p;
        }
    }
    10.0 * p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_fit_their_values_and_tick_roundly() {
        let a = Axis::fitting([3.0e6, 9.0e6], 0.0, 100.0);
        assert!(!a.log);
        assert_eq!(a.lo, 0.0);
        assert_eq!(a.hi, 1.0e7);
        assert_eq!(a.at(5.0e6), 50.0);
        assert_eq!(a.ticks(), vec![0.0, 2.0e6, 4.0e6, 6.0e6, 8.0e6, 1.0e7]);
        let l = Axis::fitting([30.0, 90_000.0], 0.0, 400.0);
        assert!(l.log);
        assert_eq!((l.lo, l.hi), (10.0, 100_000.0));
        assert_eq!(l.at(1000.0), 200.0);
        assert_eq!(l.ticks(), vec![10.0, 100.0, 1000.0, 10_000.0, 100_000.0]);
    }

    #[test]
    fn long_labels_are_clipped() {
        assert_eq!(clip("rtrb", 100.0), "rtrb");
        let c = clip(
            "crossbeam-bounded ping-pong threads u64 1p1c cap=1024",
            126.0,
        );
        assert_eq!(c.chars().count(), 20);
        assert!(c.ends_with('…'));
    }

    #[test]
    fn series_looks_repeat_only_after_every_hue_and_dash_is_used() {
        let looks: Vec<String> = (0..HUES * DASHES).map(series_look).collect();
        let distinct: std::collections::BTreeSet<&String> = looks.iter().collect();
        assert_eq!(distinct.len(), HUES * DASHES, "{looks:?}");
        assert_eq!(looks[0], "c0 d0");
        assert_eq!(looks[HUES - 1], "c9 d0");
        assert_eq!(looks[HUES], "c0 d1", "the hues again, dashed");
        assert_eq!(looks[23], "c3 d2");
        assert_eq!(series_look(HUES * DASHES), looks[0]);
    }

    #[test]
    fn a_legend_stroke_shows_whole_dash_periods() {
        let mut s = Svg::new(300.0, 100.0);
        s.legend((100.0, 200.0), 0, "series c0 d3", "label", "rtrb");
        let out = s.finish("chart", "t");
        // From x = 108 to 108 + LEGEND_STROKE, the text after it.
        assert!(
            out.contains(r#"<line class="series c0 d3" x1="108" y1="20" x2="142" y2="20"/>"#),
            "{out}"
        );
        assert!(
            out.contains(r#"x="148" y="24" text-anchor="start">rtrb</text>"#),
            "{out}"
        );
    }

    #[test]
    fn text_is_escaped() {
        let mut s = Svg::new(10.0, 10.0);
        s.text((1.0, 2.0), "start", "label", "a<b & \"c\"");
        let out = s.finish("chart", "T<1>");
        assert!(out.contains("a&lt;b &amp; &quot;c&quot;"));
        assert!(out.contains("<title>T&lt;1&gt;</title>"));
    }
}
