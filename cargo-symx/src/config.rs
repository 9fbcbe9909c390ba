//! Configuration: defaults, then `[workspace.metadata.symx]`, then `[package.metadata.symx]`,
//! then a profile of `.config/symx.toml` (`--profile NAME`, else `default` when it exists),
//! then command-line flags. Every layer has the same keys; an unknown key is an error that
//! names the key and the file. This module owns reading and merging, nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use symx::__worker::protocol::Overrides;

/// The keys of every layer (kebab-case in the files).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    pub preemption_bound: Option<u32>,
    pub max_executions: Option<u64>,
    pub max_steps: Option<u64>,
    /// Exploration budget per test (`"30s"`, `"500ms"`, `"2m"`): exploration stops, unfinished.
    pub time_budget: Option<String>,
    /// Kill deadline per test: a test still running then is a timeout.
    pub timeout: Option<String>,
    pub jobs: Option<usize>,
    /// Worker processes per `#[symx::test]` (see `shards`).
    pub shards: Option<u32>,
    /// Known bugs: test name to the failure kind it must show (`deadlock`, `data-race`, ...).
    #[serde(default)]
    pub expect: BTreeMap<String, String>,
    /// Run the predictive checks on the traces of each passing `#[symx::test]`.
    pub predict: Option<bool>,
    /// How many of the first executions' traces the predictive checks read.
    pub predict_executions: Option<u64>,
    /// `ctp`, `mcm` or `values` ([`PREDICT_MODELS`]).
    pub predict_model: Option<String>,
    /// The context bound of the predictive queries.
    pub predict_bound: Option<u32>,
    /// Which properties to predict ([`PREDICT_PROPERTIES`]).
    pub predict_properties: Option<Vec<String>>,
    /// Explore every input class of tests that draw symbolic inputs (default: on).
    pub symbolic: Option<bool>,
    /// Symbolic conditions per path the symbolic exploration may flip.
    pub max_branch_depth: Option<u32>,
    /// Features of the package to build its tests with (besides `--features`).
    pub features: Option<Vec<String>>,
    /// Which facts of a declared program context hold (`full`, `no-rd`, `no-si`, `naive`),
    /// over the test attribute's `context_mode`.
    pub context_mode: Option<String>,
    /// Search passing tests with assertion-guided pruning: `true`, `false` or `"audit"`.
    pub assertion_guided: Option<GuidedKey>,
}

/// The value of `assertion-guided`: a switch, or the name of a mode (`"audit"`).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum GuidedKey {
    Switch(bool),
    Mode(String),
}

/// Whether and how `cargo symx test` searches with assertion-guided pruning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Guided {
    /// Only tests whose attribute asks (`assertion_guided = true`).
    #[default]
    Attribute,
    /// Every passing `#[symx::test]`.
    On,
    /// Every passing `#[symx::test]`, pruned and unpruned side by side: a difference in
    /// verdict or failing assertion sites is a failure.
    Audit,
    /// No test.
    Off,
}

impl GuidedKey {
    fn resolve(&self) -> Result<Guided, String> {
        match self {
            GuidedKey::Switch(true) => Ok(Guided::On),
            GuidedKey::Switch(false) => Ok(Guided::Off),
            GuidedKey::Mode(m) if m == "audit" => Ok(Guided::Audit),
            GuidedKey::Mode(m) => Err(format!(
                "assertion-guided is true, false or \"audit\", not \"{m}\""
            )),
        }
    }
}

impl Settings {
    /// `self` with every key `over` sets taken from `over`.
    fn merge(mut self, over: &Settings) -> Settings {
        macro_rules! take {
            ($($k:ident),*) => {$( if over.$k.is_some() { self.$k = over.$k.clone(); } )*};
        }
        take!(
            preemption_bound,
            max_executions,
            max_steps,
            time_budget,
            timeout,
            jobs,
            shards,
            predict,
            predict_executions,
            predict_model,
            predict_bound,
            predict_properties,
            symbolic,
            max_branch_depth,
            features,
            context_mode,
            assertion_guided
        );
        self.expect
            .extend(over.expect.iter().map(|(k, v)| (k.clone(), v.clone())));
        self
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    profile: BTreeMap<String, Settings>,
}

/// Models of the predictive checks (`predict-model`, `--model`).
pub const PREDICT_MODELS: &[&str] = &["ctp", "mcm", "values"];
/// Properties the predictive checks can look for (`predict-properties`, `--properties`).
pub const PREDICT_PROPERTIES: &[&str] = &["assert", "race", "atomicity", "deadlock", "lock-claim"];

/// Settings resolved for the tests of one package.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub overrides: Overrides,
    pub timeout: Duration,
    pub jobs: Option<usize>,
    pub shards: u32,
    pub expect: BTreeMap<String, String>,
    pub predict: Predict,
    pub symbolic: Symbolic,
    /// Features of the package its tests are built with (`features`).
    pub features: Vec<String>,
    /// The configured `context-mode` (checked), over the test attribute's.
    pub context_mode: Option<symx::context::ContextMode>,
    pub assertion_guided: Guided,
}

/// The symbolic exploration's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbolic {
    /// Whether `cargo symx test` explores the input classes of tests that draw inputs.
    pub enabled: bool,
    /// The configured `max-branch-depth`, over the test attribute's.
    pub max_branch_depth: Option<u32>,
}

/// The predictive checks' settings, checked (names are among [`PREDICT_MODELS`] and
/// [`PREDICT_PROPERTIES`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predict {
    /// Whether `cargo symx test` runs them (`cargo symx predict` always does).
    pub enabled: bool,
    /// Traces of the first this-many executions are analysed (at least 1).
    pub executions: u64,
    pub model: String,
    pub bound: Option<u32>,
    pub properties: Vec<String>,
    /// Keep the details of unconfirmed predictions for the report (`--verbose`; not a key).
    pub verbose: bool,
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The layers that do not depend on the package: the profile file and the flags.
pub struct Layers {
    workspace: Settings,
    profile: Settings,
    flags: Settings,
}

impl Layers {
    pub fn load(
        metadata: &cargo_metadata::Metadata,
        profile: Option<&str>,
        flags: Settings,
    ) -> Result<Layers, String> {
        let root = metadata.workspace_root.as_std_path();
        let workspace = from_metadata(
            &metadata.workspace_metadata,
            &root.join("Cargo.toml"),
            "workspace",
        )?;
        let profile = load_profile(&root.join(".config/symx.toml"), profile)?;
        check(&flags, Path::new("the command line"))?;
        Ok(Layers {
            workspace,
            profile,
            flags,
        })
    }

    /// The settings for a package, given its `[package.metadata]` and manifest path.
    pub fn for_package(&self, package: &cargo_metadata::Package) -> Result<Resolved, String> {
        let own = from_metadata(
            &package.metadata,
            package.manifest_path.as_std_path(),
            "package",
        )?;
        self.resolve(&own)
    }

    /// The settings for a package outside the workspace's members (no metadata of its own).
    pub fn for_other_package(&self) -> Result<Resolved, String> {
        self.resolve(&Settings::default())
    }

    fn resolve(&self, own: &Settings) -> Result<Resolved, String> {
        let s = self
            .workspace
            .clone()
            .merge(own)
            .merge(&self.profile)
            .merge(&self.flags);
        Ok(Resolved {
            overrides: Overrides {
                preemption_bound: s.preemption_bound,
                max_executions: s.max_executions,
                max_steps: s.max_steps,
                time_budget_ms: s
                    .time_budget
                    .as_deref()
                    .map(|d| duration(d).map(|d| d.as_millis() as u64))
                    .transpose()?,
                shard: None,
                exchange: None,
                checkpoint: None,
                resume: false,
                keep_going: false,
            },
            timeout: s
                .timeout
                .as_deref()
                .map(duration)
                .transpose()?
                .unwrap_or(DEFAULT_TIMEOUT),
            jobs: s.jobs,
            shards: s.shards.unwrap_or(1).max(1),
            predict: Predict {
                enabled: s.predict.unwrap_or(false),
                executions: s.predict_executions.unwrap_or(1).max(1),
                model: s.predict_model.unwrap_or_else(|| "ctp".into()),
                bound: s.predict_bound,
                properties: s
                    .predict_properties
                    .unwrap_or_else(|| PREDICT_PROPERTIES.iter().map(|p| p.to_string()).collect()),
                verbose: false,
            },
            symbolic: Symbolic {
                enabled: s.symbolic.unwrap_or(true),
                max_branch_depth: s.max_branch_depth,
            },
            expect: s.expect,
            features: s.features.unwrap_or_default(),
            context_mode: s
                .context_mode
                .as_deref()
                .map(str::parse)
                .transpose()
                .map_err(|e| format!("context-mode: {e}"))?,
            assertion_guided: s
                .assertion_guided
                .as_ref()
                .map(GuidedKey::resolve)
                .transpose()?
                .unwrap_or_default(),
        })
    }
}

fn from_metadata(value: &serde_json::Value, file: &Path, table: &str) -> Result<Settings, String> {
    let Some(symx) = value.get("symx") else {
        return Ok(Settings::default());
    };
    let settings: Settings = serde_json::from_value(symx.clone())
        .map_err(|e| format!("{}: in [{table}.metadata.symx]: {e}", file.display()))?;
    check(&settings, file)?;
    Ok(settings)
}

fn load_profile(file: &PathBuf, name: Option<&str>) -> Result<Settings, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match name {
                Some(n) => Err(format!(
                    "profile `{n}` was asked for but {} does not exist",
                    file.display()
                )),
                None => Ok(Settings::default()),
            };
        }
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    let config: ConfigFile =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    for settings in config.profile.values() {
        check(settings, file)?;
    }
    match name {
        Some(n) => config.profile.get(n).cloned().ok_or_else(|| {
            let known: Vec<&str> = config.profile.keys().map(String::as_str).collect();
            format!(
                "{}: no profile `{n}` (profiles: {})",
                file.display(),
                known.join(", ")
            )
        }),
        None => Ok(config.profile.get("default").cloned().unwrap_or_default()),
    }
}

/// Values serde cannot check: durations and expected kinds.
fn check(s: &Settings, file: &Path) -> Result<(), String> {
    for (key, value) in [("time-budget", &s.time_budget), ("timeout", &s.timeout)] {
        if let Some(v) = value {
            duration(v).map_err(|e| format!("{}: key `{key}`: {e}", file.display()))?;
        }
    }
    if let Some(m) = &s.predict_model {
        one_of("predict-model", m, PREDICT_MODELS, file)?;
    }
    for p in s.predict_properties.iter().flatten() {
        one_of("predict-properties", p, PREDICT_PROPERTIES, file)?;
    }
    let kinds = crate::report::kind::expectable();
    for (test, kind) in &s.expect {
        if !kinds.contains(&kind.as_str()) {
            return Err(format!(
                "{}: key `expect.{test}`: unknown failure kind `{kind}` (expected one of {})",
                file.display(),
                kinds.join(", ")
            ));
        }
    }
    Ok(())
}

fn one_of(key: &str, value: &str, known: &[&str], file: &Path) -> Result<(), String> {
    if known.contains(&value) {
        return Ok(());
    }
    Err(format!(
        "{}: key `{key}`: unknown value `{value}` (expected one of {})",
        file.display(),
        known.join(", ")
    ))
}

/// `"500ms"`, `"30s"`, `"2m"`, `"1h"`, or a number of seconds.
pub fn duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (like 500ms, 30s, 2m)"))?;
    let secs = match unit.trim() {
        "ms" => n / 1000.0,
        "" | "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        other => return Err(format!("unknown unit `{other}` in `{text}` (ms, s, m, h)")),
    };
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(duration("7").unwrap(), Duration::from_secs(7));
        assert!(duration("soon").is_err());
        assert!(duration("3d").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn later_layers_win_and_expectations_accumulate() {
        let base = Settings {
            preemption_bound: Some(3),
            jobs: Some(1),
            expect: [("a".to_string(), "deadlock".to_string())].into(),
            ..Settings::default()
        };
        let over = Settings {
            preemption_bound: Some(2),
            expect: [("b".to_string(), "panic".to_string())].into(),
            ..Settings::default()
        };
        let merged = base.merge(&over);
        assert_eq!(merged.preemption_bound, Some(2));
        assert_eq!(merged.jobs, Some(1));
        assert_eq!(merged.expect.len(), 2);
    }

    #[test]
    fn every_key_of_a_later_layer_wins() {
        let over = Settings {
            preemption_bound: Some(1),
            max_executions: Some(2),
            max_steps: Some(3),
            time_budget: Some("4s".into()),
            timeout: Some("5s".into()),
            jobs: Some(6),
            shards: Some(7),
            expect: BTreeMap::new(),
            predict: Some(true),
            predict_executions: Some(8),
            predict_model: Some("mcm".into()),
            predict_bound: Some(9),
            predict_properties: Some(vec!["race".into()]),
            symbolic: Some(false),
            max_branch_depth: Some(10),
            features: Some(vec!["model".into()]),
            context_mode: Some("naive".into()),
            assertion_guided: Some(GuidedKey::Mode("audit".into())),
        };
        let merged = Settings::default().merge(&over);
        // Debug output covers every field, so a key left out of `merge` shows here.
        assert_eq!(format!("{merged:?}"), format!("{over:?}"));
    }

    #[test]
    fn assertion_guided_is_a_switch_or_audit() {
        let file = |text: &str| toml::from_str::<ConfigFile>(text).unwrap().profile["p"].clone();
        for (text, mode) in [
            ("[profile.p]\nassertion-guided = true\n", Guided::On),
            ("[profile.p]\nassertion-guided = false\n", Guided::Off),
            ("[profile.p]\nassertion-guided = \"audit\"\n", Guided::Audit),
            ("[profile.p]\n", Guided::Attribute),
        ] {
            let key = file(text).assertion_guided;
            let got = key.as_ref().map(GuidedKey::resolve).transpose().unwrap();
            assert_eq!(got.unwrap_or_default(), mode, "{text}");
        }
        let bad = file("[profile.p]\nassertion-guided = \"sometimes\"\n").assertion_guided;
        let err = bad.unwrap().resolve().unwrap_err();
        assert!(err.contains("\"sometimes\""), "{err}");
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = toml::from_str::<ConfigFile>("[profile.ci]\npreemption-bund = 2\n")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("preemption-bund"), "{err}");
    }

    #[test]
    fn predict_names_are_checked() {
        let file = Path::new("symx.toml");
        for (bad, says) in [
            (
                Settings {
                    predict_model: Some("cam".into()),
                    ..Settings::default()
                },
                ["predict-model", "`cam`"],
            ),
            (
                Settings {
                    predict_properties: Some(vec!["race".into(), "liveness".into()]),
                    ..Settings::default()
                },
                ["`liveness`", "atomicity"],
            ),
        ] {
            let err = check(&bad, file).unwrap_err();
            assert!(says.iter().all(|s| err.contains(s)), "{err}");
        }
        let good = Settings {
            predict_model: Some("values".into()),
            predict_properties: Some(vec!["assert".into(), "deadlock".into()]),
            ..Settings::default()
        };
        assert!(check(&good, file).is_ok());
    }
}
