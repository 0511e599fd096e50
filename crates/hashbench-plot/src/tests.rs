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
                hollow: false,
                palette_slot: Some(0),
                label: "LSH".into(),
                points: vec![(12.0, 0.2), (16.0, 0.25), (64.0, 0.3)],
                spread: vec![0.02, 0.01, 0.03],
            },
            Series {
                dashed: false,
                hollow: false,
                palette_slot: Some(5),
                label: "PCAH".into(),
                points: vec![(12.0, 0.4), (16.0, f64::NAN), (64.0, 0.2)],
                spread: Vec::new(),
            },
            Series {
                dashed: true,
                hollow: false,
                palette_slot: Some(5),
                label: "PCAH (linear scan)".into(),
                points: vec![(12.0, 0.5), (64.0, 0.5)],
                spread: Vec::new(),
            },
        ],
    };
    render(&fig, &dir.join("fig")).unwrap();
    let svg = std::fs::read_to_string(dir.join("fig.svg")).unwrap();
    assert!(svg.contains("PCAH (linear scan)") && svg.contains("Number of bits"));
    let png = std::fs::read(dir.join("fig.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // issue 74: a write that fails (a full disk; here the temporary's
    // place taken by a folder) leaves the figure drawn before whole, and no
    // temporary behind
    let blocked = temporary_of(&dir.join("fig.png"));
    std::fs::create_dir(&blocked).unwrap();
    let mut changed = fig.clone();
    changed.title = "another".into();
    let e = render(&changed, &dir.join("fig")).unwrap_err().to_string();
    assert!(e.contains("fig.png"), "{e}");
    assert_eq!(std::fs::read(dir.join("fig.png")).unwrap(), png);
    std::fs::remove_dir(&blocked).unwrap();
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_papers_dashed_series_keeps_its_methods_colour_with_a_hollow_marker() {
    let series = |label: &str, dashed: bool, hollow: bool| Series {
        label: label.into(),
        points: vec![(1.0, 0.5)],
        dashed,
        hollow,
        palette_slot: Some(2),
        spread: Vec::new(),
    };
    let fig = Figure {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        categorical_x: false,
        series: vec![
            series("OKH", false, false),
            series("OKH (paper)", true, true),
            series("OKH (p=50)", false, false),
        ],
    };
    let s = styles(&fig);
    assert_eq!(s[1].color, s[0].color);
    assert_eq!(s[1].marker, s[0].marker.hollow());
    assert_ne!(s[1].marker, s[0].marker);
    // a solid sibling is still a sweep: a lighter shade
    assert_ne!(s[2].color, s[0].color);
}

#[test]
fn a_palette_slot_fixes_colour_and_marker_and_a_sweep_gets_distinct_styles() {
    assert_eq!(
        style_of(Some(3), "KLSH", 0),
        style_of(Some(3), "KLSH (p=50)", 0)
    );
    assert_ne!(style_of(Some(3), "KLSH", 0), style_of(Some(2), "KLSH", 0));
    // a series without a slot takes the spare slot its label hashes to
    // (h = 31 h + byte from 7, by hand: 8,444,388 = 6 * 1,407,398, so the
    // first of the 6 spare slots), the same in every figure
    assert_eq!(
        style_of(None, "A*^2", 0),
        style_of(Some(LISTED_SLOTS), "another label", 0)
    );
    assert_ne!(style_of(None, "A*^2", 0), style_of(None, "A*^3", 0));
    // and never a listed method's colour
    let listed: Vec<_> = (0..LISTED_SLOTS)
        .map(|k| style_of(Some(k), "m", 0).color)
        .collect();
    for label in [
        "new-method",
        "NEW",
        "linear scan",
        "True random",
        "A*^2",
        "x",
    ] {
        assert!(!listed.contains(&style_of(None, label, 0).color), "{label}");
    }
    // eight methods of one panel (SpaH): distinct colours
    let colours: Vec<_> = (0..8).map(|k| style_of(Some(k), "m", 0).color).collect();
    for (i, a) in colours.iter().enumerate() {
        assert!(colours[i + 1..].iter().all(|b| b != a));
    }
    // four series of one method (a parameter sweep): distinct styles
    let fig = Figure {
        title: String::new(),
        x_label: String::new(),
        y_label: String::new(),
        categorical_x: false,
        series: ["p=50", "p=100", "p=200", "p=300"]
            .iter()
            .map(|l| Series {
                label: format!("KLSH ({l})"),
                points: vec![(1.0, 1.0)],
                dashed: false,
                hollow: false,
                palette_slot: Some(3),
                spread: Vec::new(),
            })
            .collect(),
    };
    let styles = styles(&fig);
    for (i, a) in styles.iter().enumerate() {
        assert!(styles[i + 1..].iter().all(|b| b != a), "{styles:?}");
    }
}

#[test]
fn the_legend_lies_right_of_the_plot_area() {
    let dir = std::env::temp_dir().join(format!("hashbench-legend-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fig = Figure {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        categorical_x: true,
        series: vec![Series {
            label: "LegendLabel".into(),
            points: vec![(12.0, 0.1), (16.0, 0.9)],
            dashed: false,
            hollow: false,
            palette_slot: Some(0),
            spread: vec![0.05, 0.05],
        }],
    };
    render(&fig, &dir.join("f")).unwrap();
    let svg = std::fs::read_to_string(dir.join("f.svg")).unwrap();
    let at = svg.find("LegendLabel").unwrap();
    let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
    let x: f64 = tag
        .split("x=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(x > f64::from(800 - LEGEND_WIDTH), "{tag}");
    assert!(svg.contains("bands"), "the band note is drawn");
    std::fs::remove_dir_all(&dir).unwrap();
}
