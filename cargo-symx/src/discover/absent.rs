//! Why a test a command looks for is not among the tests built, said as the real cause: the
//! test exists in a build with a feature this one lacks (found by building once with each
//! feature the selected packages declare, only on this error path), or a test of a similar
//! name exists (a misspelt filter). Used by `test` (a filter that matches nothing), `replay`
//! (a token of no test built) and `predict` (a trace of no test built).

use cargo_metadata::Metadata;

use super::{build_and_list, selected, CargoOptions, TestCase};

/// At most this many builds with another feature: the search is a diagnosis, not a sweep.
const MAX_BUILDS: usize = 8;

/// A test found in a build with one more feature.
#[derive(Debug, PartialEq, Eq)]
pub struct Elsewhere {
    /// `package/feature`, as `--features` takes it.
    pub feature: String,
    /// The test's name.
    pub test: String,
}

/// Builds with each feature of the selected packages that `cargo` does not enable, one at a
/// time, and returns the first whose tests hold one `wanted` accepts.
pub fn with_other_features(
    cargo: &CargoOptions,
    metadata: &Metadata,
    wanted: &dyn Fn(&TestCase) -> bool,
) -> Option<Elsewhere> {
    let candidates = missing_features(cargo, metadata);
    if candidates.is_empty() {
        return None;
    }
    eprintln!(
        "note: looking for it in builds with the features this one lacks ({})",
        candidates.join(", ")
    );
    for feature in candidates.into_iter().take(MAX_BUILDS) {
        let mut other = cargo.clone();
        other.configured_features.push(feature.clone());
        let Ok(cases) = build_and_list(&other, metadata, None, &[], false) else {
            continue;
        };
        if let Some(case) = cases.iter().find(|c| wanted(c)) {
            return Some(Elsewhere {
                feature,
                test: case.name.clone(),
            });
        }
    }
    None
}

/// The declared features (`package/feature`) of the selected packages this build lacks.
fn missing_features(cargo: &CargoOptions, metadata: &Metadata) -> Vec<String> {
    let on = enabled(cargo);
    let mut missing = Vec::new();
    for p in selected(cargo, metadata) {
        for f in p.features.keys().filter(|f| f.as_str() != "default") {
            let qualified = format!("{}/{f}", p.name);
            if !on.contains(f) && !on.contains(&qualified) {
                missing.push(qualified);
            }
        }
    }
    missing
}

/// The features this build asks for: the command line's and the configuration's.
fn enabled(cargo: &CargoOptions) -> Vec<String> {
    (cargo.features.iter().chain(&cargo.configured_features))
        .flat_map(|f| f.split([',', ' ']))
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// "this build has none" or "this build has `a, p/b`": what a cause compares against.
pub fn this_build(cargo: &CargoOptions) -> String {
    let on = enabled(cargo);
    if on.is_empty() {
        "this build has no features".to_string()
    } else {
        format!("this build has `--features {}`", on.join(","))
    }
}

/// The sentence naming where the test is: "`name` is in a build with `--features p/f`; this
/// build has …".
pub fn elsewhere_said(found: &Elsewhere, cargo: &CargoOptions) -> String {
    format!(
        "`{}` is in a build with `--features {}`; {} (add `--features {}`)",
        found.test,
        found.feature,
        this_build(cargo),
        found.feature
    )
}

/// The error of a command that found no test `wanted` accepts, starting with `head`: where the
/// test is when a build with another feature has it, else what to select.
pub fn not_built(
    head: &str,
    cargo: &CargoOptions,
    metadata: &Metadata,
    wanted: &dyn Fn(&TestCase) -> bool,
) -> String {
    if let Some(found) = with_other_features(cargo, metadata, wanted) {
        return format!("{head}: {}", elsewhere_said(&found, cargo));
    }
    let fix = if cargo.packages.is_empty() && !cargo.workspace {
        "select its package with -p, or its workspace with --manifest-path"
    } else {
        "it is a test of another package, or one since renamed or removed"
    };
    format!("{head}, nor in a build with another feature of the selected packages: {fix}")
}

/// The test names closest to `filter` (a likely misspelling), at most three: by edit
/// distance of the filter to the name's last path segment, within a fifth of its length.
pub fn similar<'a>(names: impl Iterator<Item = &'a str>, filter: &str) -> Vec<&'a str> {
    let limit = (filter.chars().count() / 5).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .map(|n| (distance(n.rsplit("::").next().unwrap_or(n), filter), n))
        .filter(|&(d, _)| d <= limit)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Levenshtein's edit distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_filter_is_matched_to_the_closest_names_only() {
        let names = [
            "tests::locked_counter_is_exact",
            "tests::lost_update",
            "other",
        ];
        assert_eq!(
            similar(names.iter().copied(), "locked_countr_is_exact"),
            ["tests::locked_counter_is_exact"]
        );
        assert_eq!(
            similar(names.iter().copied(), "lost_updat"),
            ["tests::lost_update"]
        );
        assert!(similar(names.iter().copied(), "nothing_like_it").is_empty());
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_build_is_described_by_every_feature_it_asks_for() {
        let mut cargo = CargoOptions::default();
        assert_eq!(this_build(&cargo), "this build has no features");
        cargo.features = vec!["a,b".into()];
        cargo.configured_features = vec!["p/model".into()];
        assert_eq!(
            this_build(&cargo),
            "this build has `--features a,b,p/model`"
        );
    }
}
