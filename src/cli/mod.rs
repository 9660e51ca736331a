//! The command line (docs/design.md §9): [`args`] is its grammar, one
//! module per command does the work, and [`main`] maps each command to its
//! module and every outcome to an exit code. Exit codes: 0 every verdict
//! as expected, 1 a verdict differs from the expectation, 2 bad input or
//! usage (before any search: the reports folder is tried first), or reports
//! that could not be written (after the verdicts are printed), 3 a bound or
//! timeout stopped a check before a verdict, 130 Ctrl-C stopped a check or
//! a simulation ([`crate::interrupt`]: the verdicts found so far are
//! printed; a check keeps its previous report, a simulation writes what it
//! found). A definite verdict that differs from the expectation is 1 even
//! when another property is still unknown; 130 outweighs every verdict.
//! Every command returns a [`failure::Exit`]; [`failure::finish`] prints a
//! failure as text or JSON (docs/json.md) and gives its code.

use std::path::PathBuf;

use clap::{CommandFactory, Parser};

use crate::check::Options;
use crate::interrupt;
use crate::memory;
use crate::progress::{self, Progress};

/// Prints a line on stdout. A closed stdout (`locksmith ... | head`) is not
/// an error worth a panic: the check goes on, its reports are written and
/// its exit code still tells the verdict.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod args;
mod bench;
mod check;
mod explore;
mod failure;
mod json;
mod list;
mod matrix;
mod replay;
mod show;
mod simulate;
mod sweep;
mod usage;

use args::{Cli, Command, Format, DEFAULT_MEMORY};
use failure::{finish, format_in, Exit, Failure};

/// Parses the command line, runs its command and maps the outcome to the
/// exit code, printing a failure in the format asked for
/// ([`failure::finish`]): the one place an error becomes an exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
            let usage = Failure::bad(usage::usage_error(&e, &args));
            return finish(format_in(&args), Err(usage));
        }
        Err(e) => {
            let _ = e.print();
            return 0;
        }
    };
    let format = cli.command.format();
    finish(format, run(cli.command))
}

/// Runs one command: the exit code its verdicts give, or its failure.
fn run(command: Command) -> Exit {
    match command {
        Command::List { format } => list::list(format),
        Command::Show { name, spec } => show::show(&name, spec),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "locksmith", &mut std::io::stdout());
            Ok(0)
        }
        Command::Man => man(),
        Command::Check(args) => check::run(args),
        Command::Sweep(args) => sweep::sweep_cmd(&args),
        Command::Matrix {
            scenarios,
            full,
            max_states,
            reports,
            jobs,
            format,
        } => {
            progress::interval()?;
            let opts = Options {
                max_memory: Some(default_memory()),
                progress: Some(Progress::search("matrix")),
                threads: 1,
                interrupt: interrupt::on_ctrl_c(),
                ..Options::default()
            };
            let reports = reports.unwrap_or_else(|| PathBuf::from("reports"));
            matrix::matrix_cmd(&scenarios, &opts, &reports, jobs, full.then_some(max_states), format)
        }
        Command::Simulate(args) => simulate::run(args),
        #[rustfmt::skip]
        Command::Bench { repeat, only, threads, no_tlc, baseline, format, child } => {
            bench::bench_cmd(bench::BenchArgs { repeat, only, threads, no_tlc, baseline, format, child })
        },
        Command::Merge { dirs, format } => simulate::merge_cmd(&dirs, format),
        Command::Explore {
            scenario,
            addr,
            no_symmetry,
        } => explore::explore_cmd(&scenario, &addr, no_symmetry),
        Command::Reenact {
            trace,
            tick_ms,
            scenario,
            log,
            format,
        } => replay::reenact_cmd(&trace, crate::real::reenact::Options { tick_ms, scenario, log }, format),
        Command::Replay {
            trace,
            scenario,
            format,
        } => replay::replay_cmd(&trace, scenario.as_deref(), format),
    }
}

/// `man`: the man page, from the same definitions as the command line.
fn man() -> Exit {
    clap_mangen::Man::new(Cli::command())
        .render(&mut std::io::stdout())
        .map(|()| 0)
        .map_err(|e| Failure::bad(format!("the man page could not be written: {e}")))
}

/// The memory bound when `--max-memory` is not given: 3/4 of the machine's
/// memory, or [`DEFAULT_MEMORY`] where that cannot be read.
pub(super) fn default_memory() -> u64 {
    memory::total().map_or(DEFAULT_MEMORY, |t| t / 4 * 3)
}
