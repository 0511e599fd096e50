#![doc = include_str!("../README.md")]

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// One line of a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label (the method's label).
    pub label: String,
    /// Points (x, y) in x order; NaN y values are left out.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed in the method's colour and marker: a reference such as
    /// the linear scan, or the paper's numbers.
    pub dashed: bool,
    /// Markers drawn hollow (the paper's numbers beside ours).
    pub hollow: bool,
    /// The method's fixed colour slot in the palette (from its registration),
    /// or `None` for a colour chosen from the label.
    pub palette_slot: Option<usize>,
    /// One standard deviation over trials at each point (drawn as a band of
    /// ± spread around the line); empty, or zero at a point, for none.
    pub spread: Vec<f64>,
}

/// A figure panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Title above the plot.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// When set, x values are categories (e.g. code lengths 12, 16, 24, ...) drawn
    /// evenly spaced, as the papers draw them.
    pub categorical_x: bool,
    /// The lines.
    pub series: Vec<Series>,
}

/// A drawing failure, with the file at fault.
#[derive(Debug, thiserror::Error)]
#[error("drawing {path}: {reason}")]
pub struct PlotError {
    /// Output file.
    pub path: String,
    /// What failed.
    pub reason: String,
}

const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The slots of the methods a catalog lists by name (its `colours`, at most
/// this many: the catalog's test in hashbench-methods checks it), each
/// keeping its colour across figures; the slots after them are the spare
/// ones a series of no listed method (a new method, a reference line) takes
/// by its label's hash, so it never wears a listed method's colour.
pub const LISTED_SLOTS: usize = 20;

/// Colours in a fixed order: the listed methods' (18 taken by the five
/// papers' methods, 2 free), then the spare ones.
const PALETTE: [RGBColor; 26] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 0),
    RGBColor(255, 0, 255),
    RGBColor(0, 128, 128),
    RGBColor(128, 128, 0),
    RGBColor(255, 190, 0),
    RGBColor(90, 60, 160),
    RGBColor(0, 90, 50),
    RGBColor(179, 88, 6),
    RGBColor(102, 194, 165),
    RGBColor(252, 141, 98),
    RGBColor(141, 160, 203),
    RGBColor(231, 138, 195),
    RGBColor(166, 216, 84),
    RGBColor(140, 140, 60),
];

/// A tick value without binary-fraction noise (0.15, not 0.15000000000000002):
/// at most 6 significant digits, trailing zeros dropped.
fn tick_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (5 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The palette slot of a series: its fixed one, else one chosen from the label.
fn slot_of(palette_slot: Option<usize>, label: &str) -> usize {
    palette_slot.unwrap_or_else(|| {
        let hash = label
            .bytes()
            .fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
        LISTED_SLOTS + hash % (PALETTE.len() - LISTED_SLOTS)
    })
}

/// Point markers, one per palette slot (cycled), so a method keeps its marker
/// across figures as it keeps its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled triangle.
    Triangle,
    /// A filled square.
    Square,
    /// A diagonal cross.
    Cross,
    /// A hollow circle.
    Ring,
    /// A hollow square.
    Box,
    /// A hollow triangle.
    Delta,
}

impl Marker {
    /// The hollow marker of the same shape.
    pub fn hollow(self) -> Marker {
        match self {
            Marker::Circle | Marker::Ring => Marker::Ring,
            Marker::Square | Marker::Box => Marker::Box,
            Marker::Triangle | Marker::Delta => Marker::Delta,
            Marker::Cross => Marker::Cross,
        }
    }
}

const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
    Marker::Ring,
    Marker::Box,
];

/// How a series is drawn: colour and marker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// Line, marker and band colour.
    pub color: RGBColor,
    /// Point marker.
    pub marker: Marker,
}

/// The style of a series: its palette slot's colour and marker; the
/// `variant`-th other series of one slot in a figure (a parameter sweep of
/// one method, KLSH's p = 50, 100, ...) gets a lighter shade and the next
/// marker, so every line of a panel stays distinguishable.
pub fn style_of(palette_slot: Option<usize>, label: &str, variant: usize) -> Style {
    let slot = slot_of(palette_slot, label);
    let base = PALETTE[slot % PALETTE.len()];
    let lighten = |c: u8| {
        let t = (0.22 * (variant % 4) as f64).min(0.66);
        (f64::from(c) + (255.0 - f64::from(c)) * t).round() as u8
    };
    Style {
        color: RGBColor(lighten(base.0), lighten(base.1), lighten(base.2)),
        marker: MARKERS[(slot + variant) % MARKERS.len()],
    }
}

/// Draws `marker` at `p` in `color`.
fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    p: CT::From,
    marker: Marker,
    color: RGBColor,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let (fill, line) = (color.filled(), color.stroke_width(2));
    let at = EmptyElement::at(p);
    match marker {
        Marker::Circle => area.draw(&(at + Circle::new((0, 0), 4, fill))),
        Marker::Ring => area.draw(&(at + Circle::new((0, 0), 4, line))),
        Marker::Triangle => area.draw(&(at + TriangleMarker::new((0, 0), 5, fill))),
        Marker::Delta => area.draw(&(at + TriangleMarker::new((0, 0), 5, line))),
        Marker::Square => area.draw(&(at + Rectangle::new([(-4, -4), (4, 4)], fill))),
        Marker::Box => area.draw(&(at + Rectangle::new([(-4, -4), (4, 4)], line))),
        Marker::Cross => area.draw(&(at + Cross::new((0, 0), 4, line))),
    }
    .map_err(e)
}

/// Width of the legend column right of the plot (the legend never covers data).
const LEGEND_WIDTH: u32 = 210;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TTF shipped with the crate; failure is a build defect.
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .map_err(|_| ())
            .expect("embedded DejaVu Sans font is valid");
    });
}

/// Draws `fig` to `<stem>.png` and `<stem>.svg`. Each is drawn beside its
/// place and renamed into it once whole: a full disk leaves the figure
/// drawn before (or none), never a truncated one that later runs keep.
///
/// # Errors
/// [`PlotError`] naming the file when drawing or writing fails.
pub fn render(fig: &Figure, stem: &Path) -> Result<(), PlotError> {
    register_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    replaced_whole(&png, |tmp| {
        let root = BitMapBackend::new(tmp, (800, 560)).into_drawing_area();
        draw(&root, fig)?;
        root.present().map_err(|e| e.to_string())
    })?;
    replaced_whole(&svg, |tmp| {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, (800, 560)).into_drawing_area();
            draw(&root, fig)?;
            root.present().map_err(|e| e.to_string())?;
        }
        std::fs::write(tmp, text).map_err(|e| e.to_string())
    })
}

/// The temporary a figure at `path` is drawn into: beside it, its extension
/// kept (the bitmap backend picks the format by it).
fn temporary_of(path: &Path) -> std::path::PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let ext = path.extension().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!("{stem}.tmp-{}.{ext}", std::process::id()))
}

/// Writes `path` through `write` into a temporary file beside it, then
/// renames that into place; on failure the temporary goes and `path` is as
/// it was.
fn replaced_whole(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), PlotError> {
    let tmp = temporary_of(path);
    let done = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done.map_err(|reason| PlotError {
        path: path.display().to_string(),
        reason,
    })
}

/// The style of each series of `fig`: series that share a palette slot are
/// told apart by variant (see [`style_of`]).
fn styles(fig: &Figure) -> Vec<Style> {
    let mut seen: Vec<usize> = Vec::new();
    fig.series
        .iter()
        .map(|s| {
            let slot = slot_of(s.palette_slot, &s.label);
            // a dashed reference keeps its method's colour and marker
            let variant = if s.dashed {
                0
            } else {
                let v = seen.iter().filter(|&&v| v == slot).count();
                seen.push(slot);
                v
            };
            let style = style_of(s.palette_slot, &s.label, variant);
            Style {
                marker: if s.hollow {
                    style.marker.hollow()
                } else {
                    style.marker
                },
                ..style
            }
        })
        .collect()
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let titled = root.titled(&fig.title, ("sans-serif", 20)).map_err(e)?;
    let (width, _) = titled.dim_in_pixel();
    let (root, legend) = titled.split_horizontally(width.saturating_sub(LEGEND_WIDTH));
    let styles = styles(fig);
    let xs = x_values(fig);
    let ((x0, x1), (y0, y1)) = (x_range(fig, &xs), y_range(fig));
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    let x_fmt = x_formatter(fig.categorical_x, xs.clone());
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(fig.x_label.as_str())
        .y_desc(fig.y_label.as_str())
        .x_label_formatter(&x_fmt)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17));
    if fig.categorical_x {
        mesh.x_labels(xs.len() * 4 + 1);
    }
    mesh.draw().map_err(e)?;
    let position = |x: f64| {
        if fig.categorical_x {
            xs.iter().position(|&v| v == x).unwrap_or(0) as f64
        } else {
            x
        }
    };
    // spread bands first, under every line
    for (s, style) in fig.series.iter().zip(&styles) {
        if let Some(outline) = band_outline(s, &position) {
            chart
                .draw_series(std::iter::once(Polygon::new(
                    outline,
                    style.color.mix(0.18).filled(),
                )))
                .map_err(e)?;
        }
    }
    for (s, style) in fig.series.iter().zip(&styles) {
        let color = style.color;
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|&(x, y)| (position(x), y))
            .collect();
        if s.dashed {
            chart
                .draw_series(DashedLineSeries::new(
                    pts.clone(),
                    8,
                    6,
                    color.stroke_width(2),
                ))
                .map_err(e)?;
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(e)?;
        }
        for p in pts {
            draw_marker(chart.plotting_area(), p, style.marker, color)?;
        }
    }
    draw_legend(&legend, fig, &styles)
}

/// The x axis's tick labels: on a categorical axis the x values at their
/// positions 0, 1, ... (`categories`) and nothing between, else numbers.
fn x_formatter(categorical: bool, categories: Vec<f64>) -> impl Fn(&f64) -> String {
    move |v: &f64| {
        if categorical {
            let k = v.round();
            if (v - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < categories.len() {
                format!("{}", categories[k as usize])
            } else {
                String::new()
            }
        } else {
            tick_label(*v)
        }
    }
}

/// Every x value of the figure's series, sorted, once each.
fn x_values(fig: &Figure) -> Vec<f64> {
    let mut xs: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs
}

/// The x axis: the categories' positions with a margin, the values' span,
/// or one unit around a single value.
fn x_range(fig: &Figure, xs: &[f64]) -> (f64, f64) {
    match (xs.first(), xs.last()) {
        (Some(_), Some(_)) if fig.categorical_x => (-0.3, (xs.len() - 1) as f64 + 0.3),
        (Some(&a2), Some(&b2)) if b2 > a2 => (a2, b2),
        (Some(&a3), _) => (a3 - 1.0, a3 + 1.0),
        _ => (0.0, 1.0),
    }
}

/// The half-width of series `s`'s band at its point `i` (0 without one).
fn spread_at(s: &Series, i: usize) -> f64 {
    s.spread
        .get(i)
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(0.0)
}

/// The y axis: every finite point and band edge, padded by 8% of the span.
fn y_range(fig: &Figure) -> (f64, f64) {
    let ys: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .enumerate()
                .flat_map(move |(i, p)| [p.1 - spread_at(s, i), p.1 + spread_at(s, i)])
        })
        .filter(|y| y.is_finite())
        .collect();
    let (mut y0, mut y1) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| {
            (a.min(y), b.max(y))
        });
    if !y0.is_finite() {
        (y0, y1) = (0.0, 1.0);
    }
    let pad = ((y1 - y0) * 0.08).max(1e-3);
    (y0 - pad, y1 + pad)
}

/// The outline of series `s`'s spread band (its upper edge, then its lower
/// edge back), when it has one over more than one point.
fn band_outline(s: &Series, position: &impl Fn(f64) -> f64) -> Option<Vec<(f64, f64)>> {
    let band: Vec<(f64, f64, f64)> = s
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.1.is_finite())
        .map(|(i, &(x, y))| (position(x), y, spread_at(s, i)))
        .collect();
    (band.len() > 1 && band.iter().any(|b| b.2 > 0.0)).then(|| {
        band.iter()
            .map(|b| (b.0, b.1 + b.2))
            .chain(band.iter().rev().map(|b| (b.0, b.1 - b.2)))
            .collect()
    })
}

/// The legend in its own column: a line sample with the marker, and the
/// label, per series; a note on the bands when any series has them.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    fig: &Figure,
    styles: &[Style],
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let font = ("sans-serif", 14).into_font();
    let top = 24;
    for (i, (s, style)) in fig.series.iter().zip(styles).enumerate() {
        let y = top + 22 * i as i32;
        let line = style.color.stroke_width(2);
        if s.dashed {
            area.draw(&PathElement::new(vec![(6, y), (14, y)], line))
                .map_err(e)?;
            area.draw(&PathElement::new(vec![(22, y), (30, y)], line))
                .map_err(e)?;
        } else {
            area.draw(&PathElement::new(vec![(6, y), (30, y)], line))
                .map_err(e)?;
        }
        draw_marker(area, (18, y), style.marker, style.color)?;
        area.draw(&Text::new(
            s.label.clone(),
            (38, y - 8),
            font.clone().color(&BLACK),
        ))
        .map_err(e)?;
    }
    if fig.series.iter().any(|s| s.spread.iter().any(|v| *v > 0.0)) {
        let y = top + 22 * fig.series.len() as i32 + 8;
        area.draw(&Text::new(
            "bands: ± 1 std over trials",
            (6, y),
            ("sans-serif", 13).into_font().color(&BLACK),
        ))
        .map_err(e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
