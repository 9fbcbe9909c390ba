//! The commands, one module each, and the command line they are parsed from (`args`, the only
//! module that knows clap). A command reads its settings, asks the lower layers to build,
//! run and report, and returns the exit code; the steps several commands share live in those
//! layers (`discover::build_and_list`, `report::render`, `report::exit_code`).

pub mod args;
mod covering;
mod list;
mod predict;
mod replay;
mod test;

use crate::config::Layers;
use crate::discover::CargoOptions;
use crate::report::style::Style;
use crate::EXIT_USAGE;

/// Runs the parsed command line; the process's exit code.
pub fn run(cli: &args::Cli) -> u8 {
    let color = cli.color.into();
    let result = match &cli.command {
        args::Command::Test(a) => test::test(a, color),
        args::Command::List(a) => list::list(a, color),
        args::Command::Replay(a) => replay::replay(a, color),
        args::Command::Predict(a) => predict::predict(a, color),
        args::Command::Schedules(a) => covering::covering(
            args::CoveringCommand::Schedules,
            &a.covering,
            covering::Extra {
                output: a.output.as_deref(),
                inputs: &[],
            },
            color,
        ),
        args::Command::Deadlock(a) => covering::covering(
            args::CoveringCommand::Deadlock,
            a,
            covering::Extra::default(),
            color,
        ),
        args::Command::Discharge(a) => covering::covering(
            args::CoveringCommand::Discharge,
            a,
            covering::Extra::default(),
            color,
        ),
        args::Command::Markers(a) => covering::covering(
            args::CoveringCommand::Markers,
            a,
            covering::Extra::default(),
            color,
        ),
        args::Command::TestSchedules(a) => covering::covering(
            args::CoveringCommand::TestSchedules,
            &a.covering,
            covering::Extra {
                output: None,
                inputs: &a.input,
            },
            color,
        ),
    };
    result.unwrap_or_else(|message| {
        eprintln!("{} {message}", Style::for_stderr(color).error_label());
        EXIT_USAGE
    })
}

/// Adds the `features` the configuration names for each package the options select, so that
/// every command builds what `cargo symx test` built.
fn add_configured_features(
    cargo: &mut CargoOptions,
    metadata: &cargo_metadata::Metadata,
    layers: &Layers,
) -> Result<(), String> {
    for p in crate::discover::selected(cargo, metadata) {
        for f in layers.for_package(p)?.features {
            cargo.configured_features.push(format!("{}/{f}", p.name));
        }
    }
    Ok(())
}
