//! What an experiment costs: per method, the wall and CPU seconds of its
//! fits and the CPU seconds of its evaluations, summed over the stored
//! trials (what recomputing them takes, whether this run fitted them or read
//! them back), its longest fit, and the last run's own wall and CPU seconds
//! and threads (run.json), from which its parallel efficiency.

use std::fmt::Write as _;

use hashbench_tables::{EVALUATE_CPU, FIT_CPU, FIT_SECONDS, ResultTables};

/// One method's share of an experiment's cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MethodCost {
    /// Method label.
    pub method: String,
    /// Trials with a fit time.
    pub trials: usize,
    /// Wall seconds of its fits.
    pub fit_wall: f64,
    /// Wall seconds of its longest fit.
    pub fit_wall_max: f64,
    /// CPU seconds of its fits.
    pub fit_cpu: f64,
    /// CPU seconds of its evaluations.
    pub evaluate_cpu: f64,
}

/// A run's own seconds and threads, as run.json records them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSeconds {
    /// Wall seconds of the whole run.
    pub wall: f64,
    /// CPU seconds of its process (every thread).
    pub cpu: f64,
    /// Threads it ran on.
    pub threads: usize,
}

impl RunSeconds {
    /// What a run record holds of them, when it holds all three.
    pub fn of_record(run: &hashbench_tables::RunRecord) -> Option<Self> {
        Some(Self {
            wall: run.wall_seconds?,
            cpu: run.cpu_seconds?,
            threads: run.threads?,
        })
    }

    /// CPU seconds over wall seconds × threads (1 when every thread was busy
    /// the whole run).
    pub fn parallel_efficiency(&self) -> f64 {
        self.cpu / (self.wall * self.threads as f64).max(f64::MIN_POSITIVE)
    }
}

/// An experiment's (or a paper's) cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    /// Per method, in the order the timings list them.
    pub methods: Vec<MethodCost>,
    /// Wall seconds of the last run (all of it: data, truth, fits,
    /// evaluations, tables), when known.
    pub run_wall: Option<f64>,
    /// CPU seconds of the last run's process (every thread), when known.
    pub run_cpu: Option<f64>,
    /// Threads the last run had, when known (for a paper's total: when
    /// every run had the same).
    pub run_threads: Option<usize>,
    /// The last run's wall seconds × threads (summed for a paper), when
    /// known: what the CPU seconds are a share of.
    pub run_thread_seconds: Option<f64>,
    /// Runs summed into this cost (1 for one experiment's).
    pub runs: usize,
}

impl Cost {
    /// The per-method cost in `t`'s timings, and the run's own seconds, if
    /// known.
    pub fn of(t: &ResultTables, run: Option<RunSeconds>) -> Self {
        let mut methods: Vec<MethodCost> = Vec::new();
        for r in &t.timings {
            let at = match methods.iter().position(|m| m.method == r.method) {
                Some(at) => at,
                None => {
                    methods.push(MethodCost {
                        method: r.method.clone(),
                        ..MethodCost::default()
                    });
                    methods.len() - 1
                }
            };
            let m = &mut methods[at];
            let v = if r.value.is_finite() { r.value } else { 0.0 };
            match r.metric.as_str() {
                FIT_SECONDS => {
                    m.trials += 1;
                    m.fit_wall += v;
                    m.fit_wall_max = m.fit_wall_max.max(v);
                }
                FIT_CPU => m.fit_cpu += v,
                EVALUATE_CPU => m.evaluate_cpu += v,
                _ => {}
            }
        }
        Self {
            methods,
            run_wall: run.map(|r| r.wall),
            run_cpu: run.map(|r| r.cpu),
            run_threads: run.map(|r| r.threads),
            run_thread_seconds: run.map(|r| r.wall * r.threads as f64),
            runs: 1,
        }
    }

    /// The method with the longest single fit, and its wall seconds.
    pub fn longest_fit(&self) -> Option<(&str, f64)> {
        self.methods
            .iter()
            .filter(|m| m.trials > 0)
            .max_by(|a, b| a.fit_wall_max.total_cmp(&b.fit_wall_max))
            .map(|m| (m.method.as_str(), m.fit_wall_max))
    }

    /// The last run's parallel efficiency: its CPU seconds over wall seconds
    /// × threads (1 when every thread was busy the whole run), when known.
    pub fn parallel_efficiency(&self) -> Option<f64> {
        match (self.run_cpu, self.run_thread_seconds) {
            (Some(c), Some(t)) if t > 0.0 => Some(c / t),
            _ => None,
        }
    }

    /// "parallel efficiency 87% of 2 threads; longest trial fit MLH 12.3 s"
    /// (the wall seconds of the longest fit among the stored trials), or what
    /// is known of it.
    pub fn scaling_sentence(&self) -> String {
        let efficiency = match (self.parallel_efficiency(), self.run_threads) {
            (Some(e), Some(t)) => format!(
                "parallel efficiency {:.0}% of {t} thread{}",
                100.0 * e,
                if t == 1 { "" } else { "s" }
            ),
            (Some(e), None) => format!("parallel efficiency {:.0}%", 100.0 * e),
            (None, _) => "parallel efficiency not recorded".to_string(),
        };
        match self.longest_fit() {
            Some((method, s)) => format!("{efficiency}; longest trial fit {method} {s:.1} s"),
            None => efficiency,
        }
    }

    /// CPU seconds of every fit.
    pub fn fit_cpu(&self) -> f64 {
        self.methods.iter().map(|m| m.fit_cpu).sum()
    }

    /// CPU seconds of every evaluation.
    pub fn evaluate_cpu(&self) -> f64 {
        self.methods.iter().map(|m| m.evaluate_cpu).sum()
    }

    /// Adds `other` (a paper's total over its experiments): methods by
    /// label, the runs' seconds summed while every run's are known.
    pub fn add(&mut self, other: &Cost) {
        let first = self.runs == 0;
        self.runs += other.runs;
        for m in &other.methods {
            match self.methods.iter_mut().find(|x| x.method == m.method) {
                Some(x) => {
                    x.trials += m.trials;
                    x.fit_wall += m.fit_wall;
                    x.fit_wall_max = x.fit_wall_max.max(m.fit_wall_max);
                    x.fit_cpu += m.fit_cpu;
                    x.evaluate_cpu += m.evaluate_cpu;
                }
                None => self.methods.push(m.clone()),
            }
        }
        // a total is known only while every run summed into it is
        let sum = |a: Option<f64>, b: Option<f64>| if first { b } else { Some(a? + b?) };
        self.run_wall = sum(self.run_wall, other.run_wall);
        self.run_cpu = sum(self.run_cpu, other.run_cpu);
        self.run_thread_seconds = sum(self.run_thread_seconds, other.run_thread_seconds);
        self.run_threads = match (self.run_threads, other.run_threads) {
            (Some(a), Some(b)) if a == b => Some(a),
            (None, b) if first => b,
            _ => None,
        };
    }

    /// The costliest methods first.
    pub fn by_cpu(&self) -> Vec<&MethodCost> {
        let mut out: Vec<&MethodCost> = self.methods.iter().collect();
        out.sort_by(|a, b| (b.fit_cpu + b.evaluate_cpu).total_cmp(&(a.fit_cpu + a.evaluate_cpu)));
        out
    }

    /// A Markdown table: one row per method, costliest first, then the total.
    pub fn markdown_table(&self) -> String {
        let mut s = String::from(
            "| method | trials | fit wall s | fit CPU s | evaluation CPU s |\n|---|---|---|---|---|\n",
        );
        for m in self.by_cpu() {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1} | {:.1} | {:.1} |",
                m.method, m.trials, m.fit_wall, m.fit_cpu, m.evaluate_cpu
            );
        }
        let _ = writeln!(
            s,
            "| all | {} | {:.1} | {:.1} | {:.1} |",
            self.methods.iter().map(|m| m.trials).sum::<usize>(),
            self.methods.iter().map(|m| m.fit_wall).sum::<f64>(),
            self.fit_cpu(),
            self.evaluate_cpu()
        );
        s
    }

    /// "last run: 106.4 s wall, 175.3 s CPU", or what is known of it.
    pub fn run_sentence(&self) -> String {
        format!("last run: {}", self.run_seconds())
    }

    /// "106.4 s wall, 175.3 s CPU", or "not recorded".
    pub fn run_seconds(&self) -> String {
        match (self.run_wall, self.run_cpu) {
            (Some(w), Some(c)) => format!("{w:.1} s wall, {c:.1} s CPU"),
            _ => "not recorded".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_tables::MetricRow;

    fn row(method: &str, metric: &str, value: f64) -> MetricRow {
        MetricRow {
            method: method.into(),
            params: String::new(),
            bits: 8,
            trial: 0,
            metric: metric.into(),
            value,
        }
    }

    #[test]
    fn methods_sum_their_trials_and_papers_sum_their_experiments() {
        let t = ResultTables {
            timings: vec![
                row("A", "fit-seconds", 2.0),
                row("A", FIT_CPU, 1.5),
                row("A", EVALUATE_CPU, 0.25),
                row("A", "fit-seconds", 3.0),
                row("A", FIT_CPU, 2.5),
                row("B", "fit-seconds", 10.0),
                row("B", FIT_CPU, 9.0),
                row("B", "encode-seconds", 100.0),
                row("B", EVALUATE_CPU, f64::NAN),
            ],
            ..ResultTables::default()
        };
        let run = hashbench_tables::RunRecord {
            wall_seconds: Some(20.0),
            cpu_seconds: Some(30.0),
            threads: Some(2),
            ..Default::default()
        };
        let cost = Cost::of(&t, RunSeconds::of_record(&run));
        assert_eq!(cost.methods.len(), 2);
        let a = &cost.methods[0];
        assert_eq!(
            (a.trials, a.fit_wall, a.fit_cpu, a.evaluate_cpu),
            (2, 5.0, 4.0, 0.25)
        );
        assert_eq!(cost.fit_cpu(), 13.0);
        assert_eq!(cost.by_cpu()[0].method, "B");
        let mut paper = Cost::default();
        paper.add(&cost);
        paper.add(&cost);
        assert_eq!(paper.methods[1].fit_cpu, 18.0);
        assert_eq!((paper.run_wall, paper.run_cpu), (Some(40.0), Some(60.0)));
        assert_eq!(paper.run_threads, Some(2));
        assert_eq!(paper.parallel_efficiency(), Some(0.75));
        assert_eq!(cost.longest_fit(), Some(("B", 10.0)));
        assert_eq!(
            cost.scaling_sentence(),
            "parallel efficiency 75% of 2 threads; longest trial fit B 10.0 s"
        );
        // a run without run.json leaves the paper's total unknown, and a run
        // after it does not make it known again
        paper.add(&Cost::of(&t, None));
        assert_eq!(paper.run_wall, None);
        paper.add(&cost);
        assert_eq!((paper.run_wall, paper.parallel_efficiency()), (None, None));
        let mut other = Cost::default();
        other.add(&cost);
        other.add(&Cost::of(
            &t,
            Some(RunSeconds {
                wall: 1.0,
                cpu: 1.0,
                threads: 4,
            }),
        ));
        assert_eq!(other.run_threads, None, "runs on different thread counts");
        assert!(
            cost.markdown_table()
                .contains("| all | 3 | 15.0 | 13.0 | 0.2 |")
        );
    }
}
