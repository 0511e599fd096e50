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
    /// Drawn dashed in the method's colour: a reference such as the linear scan.
    pub dashed: bool,
    /// The method's fixed colour slot in the palette (from its registration),
    /// or `None` for a colour chosen from the label.
    pub palette_slot: Option<usize>,
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

/// Colours in a fixed order; the methods of the five papers come first so each
/// keeps its colour across figures.
const PALETTE: [RGBColor; 18] = [
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

/// The colour of a series: its fixed palette slot, else one chosen from the label.
pub fn color_of(palette_slot: Option<usize>, label: &str) -> RGBColor {
    let k = palette_slot.unwrap_or_else(|| {
        label
            .bytes()
            .fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize))
    });
    PALETTE[k % PALETTE.len()]
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TTF shipped with the crate; failure is a build defect.
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .map_err(|_| ())
            .expect("embedded DejaVu Sans font is valid");
    });
}

/// Draws `fig` to `<stem>.png` and `<stem>.svg`.
///
/// # Errors
/// [`PlotError`] naming the file when drawing or writing fails.
pub fn render(fig: &Figure, stem: &Path) -> Result<(), PlotError> {
    register_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    let err = |p: &Path| {
        let p = p.display().to_string();
        move |e: String| PlotError {
            path: p.clone(),
            reason: e,
        }
    };
    {
        let root = BitMapBackend::new(&png, (800, 560)).into_drawing_area();
        draw(&root, fig).map_err(err(&png))?;
        root.present()
            .map_err(|e| e.to_string())
            .map_err(err(&png))?;
    }
    {
        let root = SVGBackend::new(&svg, (800, 560)).into_drawing_area();
        draw(&root, fig).map_err(err(&svg))?;
        root.present()
            .map_err(|e| e.to_string())
            .map_err(err(&svg))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mut xs: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let position = |x: f64| {
        if fig.categorical_x {
            xs.iter().position(|&v| v == x).unwrap_or(0) as f64
        } else {
            x
        }
    };
    let ys: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
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
    let (x0, x1) = match (xs.first(), xs.last()) {
        (Some(_), Some(_)) if fig.categorical_x => (-0.3, (xs.len() - 1) as f64 + 0.3),
        (Some(&a2), Some(&b2)) if b2 > a2 => (a2, b2),
        (Some(&a3), _) => (a3 - 1.0, a3 + 1.0),
        _ => (0.0, 1.0),
    };
    let mut chart = ChartBuilder::on(root)
        .caption(&fig.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
        .map_err(e)?;
    let categories = xs.clone();
    let categorical = fig.categorical_x;
    let x_fmt = move |v: &f64| {
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
    };
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
    for s in &fig.series {
        let color = color_of(s.palette_slot, &s.label);
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
                .map_err(e)?
                .label(s.label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 8, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    pts.into_iter()
                        .map(|p| Cross::new(p, 4, color.stroke_width(2))),
                )
                .map_err(e)?;
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(e)?
                .label(s.label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 4, color.filled())))
                .map_err(e)?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_drop_binary_fraction_noise() {
        assert_eq!(tick_label(0.15000000000000002), "0.15");
        assert_eq!(tick_label(0.3499999999999999), "0.35");
        assert_eq!(tick_label(2000.0), "2000");
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(1.25e-4), "0.000125");
    }

    #[test]
    fn renders_png_and_svg_without_system_fonts() {
        let dir = std::env::temp_dir().join(format!("hashbench-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fig = Figure {
            title: "MAP".into(),
            x_label: "Number of bits".into(),
            y_label: "Mean average precision".into(),
            categorical_x: true,
            series: vec![
                Series {
                    dashed: false,
                    palette_slot: Some(0),
                    label: "LSH".into(),
                    points: vec![(12.0, 0.2), (16.0, 0.25), (64.0, 0.3)],
                },
                Series {
                    dashed: false,
                    palette_slot: Some(5),
                    label: "PCAH".into(),
                    points: vec![(12.0, 0.4), (16.0, f64::NAN), (64.0, 0.2)],
                },
                Series {
                    dashed: true,
                    palette_slot: Some(5),
                    label: "PCAH (linear scan)".into(),
                    points: vec![(12.0, 0.5), (64.0, 0.5)],
                },
            ],
        };
        render(&fig, &dir.join("fig")).unwrap();
        let svg = std::fs::read_to_string(dir.join("fig.svg")).unwrap();
        assert!(svg.contains("PCAH (linear scan)") && svg.contains("Number of bits"));
        let png = std::fs::read(dir.join("fig.png")).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_palette_slot_fixes_the_colour_whatever_the_label() {
        assert_eq!(color_of(Some(3), "KLSH"), color_of(Some(3), "KLSH (p=50)"));
        assert_ne!(color_of(Some(3), "KLSH"), color_of(Some(2), "KLSH"));
        assert_eq!(color_of(None, "A*^2"), color_of(None, "A*^2"));
    }
}
