//! `cargo symx list`: builds the selected test targets and prints every test, symx and
//! ordinary, as `package::target name`.

use crate::commands::args::ListArgs;
use crate::config::{Layers, Settings};
use crate::discover;
use crate::report::style::{ColorChoice, Style};

pub fn list(args: &ListArgs, color: ColorChoice) -> Result<u8, String> {
    let mut cargo = args.cargo.options();
    let metadata = discover::metadata(&cargo)?;
    let layers = Layers::load(&metadata, None, Settings::default())?;
    super::add_configured_features(&mut cargo, &metadata, &layers)?;
    let cargo_color = Style::for_stderr(color).color;
    let filter = args.filter.as_deref();
    let cases = discover::build_and_list(&cargo, &metadata, filter, &[], cargo_color)?;
    for c in &cases {
        println!("{}::{} {}", c.binary.package, c.binary.target, c.name);
    }
    Ok(0)
}
