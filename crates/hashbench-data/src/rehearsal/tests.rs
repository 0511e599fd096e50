use super::*;

fn parts(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_string()).collect()
}

fn shape(toml: &str) -> Shape {
    toml::from_str(toml).expect("a shape")
}

#[test]
fn dense_rehearsal_data_has_the_shape_its_range_and_balanced_classes() {
    let s = shape(
        "kind = 'dense'\nitems = [30, 7]\ndim = 5\nrange = [0, 255]\ninteger = true\nclasses = 3",
    );
    let d = s
        .rehearsal_data("sift", &parts(&["base", "query"]), 4, None)
        .unwrap();
    let x = d.x.as_dense().unwrap();
    assert_eq!((x.nrows(), x.ncols()), (37, 5));
    assert_eq!(
        d.parts,
        vec![("base".to_string(), 0..30), ("query".to_string(), 30..37)]
    );
    assert!((0..37).all(|i| (0..5).all(|j| {
        let v = x[(i, j)];
        (0.0..=255.0).contains(&v) && v.fract() == 0.0
    })));
    let labels = d.labels.unwrap();
    // within each part, item i has class i mod 3
    assert_eq!(&labels[..4], &[0, 1, 2, 0]);
    assert_eq!(&labels[30..34], &[0, 1, 2, 0]);
    assert_eq!(s.bytes(), 37 * 5 * 8);
}

#[test]
fn rehearsal_data_is_seeded_and_always_named_and_fingerprinted_a_rehearsal() {
    let s = shape(
        "kind = 'sparse'\nitems = [40]\ndim = 100\nnonzeros = 6\nrange = [0.1, 1]\nclasses = 4",
    );
    let a = s.rehearsal_data("news", &parts(&["all"]), 9, None).unwrap();
    let b = s.rehearsal_data("news", &parts(&["all"]), 9, None).unwrap();
    let c = s
        .rehearsal_data("news", &parts(&["all"]), 10, None)
        .unwrap();
    let rows = |d: &Dataset| match &d.x {
        Data::Sparse(rows) => rows.clone(),
        _ => panic!("sparse data"),
    };
    assert_eq!(rows(&a), rows(&b));
    assert_ne!(rows(&a), rows(&c));
    assert_eq!(a.name, "rehearsal:news");
    assert!(is_rehearsal(&a.name) && is_rehearsal(&a.fingerprint));
    assert_eq!(a.fingerprint, b.fingerprint);
    assert_ne!(a.fingerprint, c.fingerprint);
    assert!(!is_rehearsal("news") && !is_rehearsal("rehearsals-of-2009"));
    let rows = rows(&a);
    assert!((0..40).all(|i| rows.row(i).0.len() == 6));
    assert!((0..40).all(|i| rows.row(i).1.iter().all(|v| (0.1..=1.0).contains(v))));
}

#[test]
fn gram_rehearsal_data_is_a_symmetric_kernel_with_a_unit_diagonal() {
    let s = shape("kind = 'gram'\nitems = [12, 8]\nclasses = 5");
    let d = s
        .rehearsal_data("corr", &parts(&["train", "test"]), 1, None)
        .unwrap();
    let Data::Gram(g) = &d.x else {
        panic!("gram data")
    };
    let k = g.gram();
    assert_eq!((k.nrows(), k.ncols()), (20, 20));
    for a in 0..20 {
        assert!((k[(a, a)] - 1.0).abs() < 1e-12);
        for b in 0..20 {
            assert_eq!(k[(a, b)], k[(b, a)]);
        }
    }
}

#[test]
fn graph_rehearsal_data_is_read_as_its_wl_features_and_needs_them() {
    let s = shape(
        "kind = 'graphs'\nitems = [25]\nnodes = 10\nedges = 12\nnode_labels = 7\nclasses = 2",
    );
    let wl = WlSubtree {
        iterations: 2,
        normalise: false,
    };
    let d = s
        .rehearsal_data("nci", &parts(&["all"]), 3, Some(&wl))
        .unwrap();
    let Data::Sparse(rows) = &d.x else {
        panic!("sparse features")
    };
    assert_eq!(rows.n_rows(), 25);
    // level 0 counts every node once: 5 to 15 nodes per graph
    assert!((0..25).all(|i| rows.row(i).1.iter().sum::<f64>() >= 3.0 * 5.0));
    let err = s
        .rehearsal_data("nci", &parts(&["all"]), 3, None)
        .unwrap_err();
    assert!(
        err.to_string().contains("without `graph_features`"),
        "{err}"
    );
}

#[test]
fn a_shape_whose_part_sizes_miss_a_part_is_refused_naming_the_parts() {
    let s = shape("kind = 'dense'\nitems = [10]\ndim = 2\nrange = [0, 1]");
    let err = s
        .rehearsal_data("gist", &parts(&["base", "query"]), 0, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("1 part sizes for 2 parts (base, query)"),
        "{err}"
    );
    assert!(
        toml::from_str::<Shape>("kind = 'dense'\nitems = [1]\ndim = 2\nrange = [0, 1]\nrows = 3")
            .is_err()
    );
}

#[test]
fn sparse_words_follow_zipf_so_the_most_frequent_words_hold_much_of_each_row() {
    // 20 Newsgroups' shape: keeping the 500 most frequent of 61,188 terms
    // keeps 63 of 130 words per document on the real data
    let s = shape(
        "kind = 'sparse'\nitems = [2000]\ndim = 61188\nnonzeros = 130\nrange = [1, 716]\nclasses = 20",
    );
    let d = s.rehearsal_data("news", &parts(&["all"]), 2, None).unwrap();
    let Data::Sparse(rows) = &d.x else {
        panic!("sparse data")
    };
    let mut df = vec![0usize; 61188];
    for i in 0..2000 {
        for &w in rows.row(i).0 {
            df[w as usize] += 1;
        }
    }
    let mut order: Vec<usize> = (0..61188).collect();
    order.sort_by_key(|&w| std::cmp::Reverse(df[w]));
    let top: std::collections::HashSet<u32> = order[..500].iter().map(|&w| w as u32).collect();
    let kept = (0..2000)
        .map(|i| rows.row(i).0.iter().filter(|w| top.contains(w)).count())
        .sum::<usize>() as f64
        / 2000.0;
    assert!(kept > 30.0, "{kept} of 130 words per row in the top 500");
    assert!((0..2000).all(|i| rows.row(i).0.iter().any(|w| top.contains(w))));
}

/// Node labels follow the shape's measured shares, shifted by the class;
/// NCI1's skew (74% of nodes one label) gives far fewer distinct WL
/// features than an even alphabet, which is what a graph kernel's cost
/// grows with.
#[test]
fn graph_labels_follow_the_measured_shares() {
    let draw = LabelDraw::new("nci", 37, &[0.736, 0.149, 0.084]).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let share = |class: usize, label: u32, rng: &mut ChaCha8Rng| {
        (0..20_000)
            .filter(|_| draw.draw(class, rng) == label)
            .count() as f64
            / 20_000.0
    };
    assert!((share(0, 0, &mut rng) - 0.736).abs() < 0.01);
    assert!((share(0, 2, &mut rng) - 0.084).abs() < 0.01);
    assert!((share(0, 36, &mut rng) - 0.031 / 34.0).abs() < 0.002);
    assert!((share(1, 1, &mut rng) - 0.736).abs() < 0.01);
    let wl = WlSubtree {
        iterations: 3,
        normalise: false,
    };
    let distinct_features = |shares: &str| {
        let s = shape(&format!(
            "kind = 'graphs'\nitems = [400]\nnodes = 30\nedges = 32\nnode_labels = 37\nclasses = 1{shares}"
        ));
        let d = s
            .rehearsal_data("nci", &parts(&["all"]), 5, Some(&wl))
            .unwrap();
        let Data::Sparse(rows) = &d.x else {
            panic!("sparse features")
        };
        (0..400).map(|i| rows.row(i).0.len()).sum::<usize>()
    };
    let skewed = distinct_features("\nlabel_shares = [0.736, 0.149, 0.084]");
    let even = distinct_features("");
    assert!(
        (skewed as f64) < 0.8 * even as f64,
        "distinct WL features: skewed {skewed}, even {even}"
    );
    for bad in ["[0.7, 0.6]", "[-0.1]"] {
        let err = LabelDraw::new("nci", 2, &serde_json::from_str::<Vec<f64>>(bad).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("dataset `nci`") && err.contains("label_shares"),
            "{err}"
        );
    }
}
