//! The Rust side of the executor: starts the JVM, speaks the protocol, and
//! restarts the JVM transparently when it dies, hangs, or ends itself after
//! a plan that left it in doubt.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::env;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;

use crate::conditions::{Assertions, Environment};
use crate::install::install_executor_classes;
use crate::outcome::{ExecutorInfo, PlanOutcome, PlanStatus, VerifyOutcome};
use crate::plan::Plan;
use crate::wire::{Header, Request, RunAnswer, VerifyAnswer, WireClass};

/// Per class (binary name): the getters that may change the object, which
/// the executor does not call when it describes a value.
pub type GettersWithEffects = BTreeMap<String, BTreeSet<String>>;

/// How long the JVM may take to start and answer its first ping.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Time allowed on top of a plan's own limit before the Rust side gives up
/// on the JVM (the JVM enforces the limit itself; this is for a JVM that
/// cannot, e.g. one stuck in garbage collection).
const WATCHDOG_MARGIN: Duration = Duration::from_secs(5);
/// How long `define`, `verify` and `shutdown` may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a JVM that announced its end gets to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);
/// Longer plan time limits are cut to this.
const MAX_PLAN_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);
/// How much of the JVM's own stderr is kept to explain a crash.
const STDERR_TAIL: usize = 8 * 1024;

/// How much static state plans share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// A fresh class loader (and thread) for every plan: no state leaks
    /// from one plan to the next.
    PerPlan,
    /// One class loader for up to `plans` consecutive plans (at least 1):
    /// faster, but static state of the code under test carries over within
    /// a batch.
    PerBatch { plans: u32 },
}

/// Which class loader runs a plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoaderChoice {
    /// As [`ExecutorConfig::isolation`] says.
    #[default]
    Configured,
    /// A new one: the plan starts from fresh static state.
    Fresh,
    /// The one the previous plan ran on (a new one if there is none): the
    /// plan sees the static state earlier plans left behind, as a test does
    /// after the other tests of its class in one JVM.
    Shared,
}

/// How to run one plan.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub timeout: Duration,
    pub loader: LoaderChoice,
    /// Defaults the plan sees in place of the JVM's.
    pub environment: Environment,
}

impl Default for RunSettings {
    /// The executor's default time limit (10 s; see
    /// [`ExecutorConfig::plan_timeout`] for what [`Executor::run`] uses),
    /// the configured loader, the JVM's own environment.
    fn default() -> Self {
        RunSettings {
            timeout: Duration::from_secs(10),
            loader: LoaderChoice::Configured,
            environment: Environment::unchanged(),
        }
    }
}

/// How to run the executor JVM.
#[derive(Clone, Debug)]
pub struct ExecutorConfig {
    /// The `java` executable (JDK 11 or newer).
    pub java: PathBuf,
    /// The project's classes and dependencies (directories and jars).
    pub classpath: Vec<PathBuf>,
    /// Where the executor's own classes are written (once per version).
    pub cache_dir: PathBuf,
    /// Where each JVM gets a fresh working directory.
    pub scratch_dir: PathBuf,
    /// The time limit of a plan unless [`Executor::run_with_timeout`] says otherwise.
    pub plan_timeout: Duration,
    pub isolation: Isolation,
    /// Whether `assert` statements run (`-ea`/`-da` options); default:
    /// enabled everywhere, as a build's test task runs tests.
    pub assertions: Assertions,
    /// `-Xmx`, e.g. `512m`.
    pub max_heap: String,
    /// Further JVM options, placed before the main class.
    pub jvm_options: Vec<String>,
    /// How deep object summaries go (getters of getters ...).
    pub summary_depth: u32,
    /// The most probe events recorded per plan.
    pub trace_limit: u32,
}

impl ExecutorConfig {
    pub fn new(
        java: impl Into<PathBuf>,
        classpath: Vec<PathBuf>,
        cache_dir: impl Into<PathBuf>,
    ) -> Self {
        ExecutorConfig {
            java: java.into(),
            classpath,
            cache_dir: cache_dir.into(),
            scratch_dir: env::temp_dir(),
            plan_timeout: Duration::from_secs(10),
            isolation: Isolation::PerPlan,
            assertions: Assertions::enabled(),
            max_heap: "512m".to_string(),
            jvm_options: Vec::new(),
            summary_depth: 2,
            trace_limit: 100_000,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("{path}: cannot install the executor's classes: {source}")]
    Install { path: PathBuf, source: io::Error },
    #[error("{path}: cannot create a working directory: {source}")]
    WorkDir { path: PathBuf, source: io::Error },
    #[error("cannot start {java}: {source}")]
    Spawn { java: PathBuf, source: io::Error },
    #[error("the executor JVM did not start: {0}")]
    Startup(String),
    #[error("the executor JVM failed during {request}: {reason}")]
    Died {
        request: &'static str,
        reason: String,
    },
    #[error("the executor JVM rejected a {request} request: {message}")]
    Rejected {
        request: &'static str,
        message: String,
    },
    #[error("the executor JVM broke the protocol: {0}")]
    Protocol(String),
}

/// A long-lived executor JVM that runs plans one at a time.
///
/// Every call that needs the JVM starts one if there is none (the previous
/// one may have ended itself after a plan), re-sending the classes given to
/// [`Executor::define`] so far.
pub struct Executor {
    config: ExecutorConfig,
    classes_dir: PathBuf,
    /// Whether to pass `-Djava.security.manager=allow`; None until known.
    allow_security_manager: Option<bool>,
    info: ExecutorInfo,
    /// Every class given to `define`, by name, in the order first given.
    defined: Vec<(String, Vec<u8>)>,
    /// Per class (binary name): getters not to call when describing a
    /// value ([`Executor::define_with_getters`]).
    getters_with_effects: GettersWithEffects,
    jvm: Option<Jvm>,
    next_id: u64,
    /// Plans run on the JVM's current class loader; 0 forces a fresh one.
    plans_on_loader: u32,
    starts: u64,
}

impl Executor {
    /// Installs the executor's classes and starts the JVM.
    pub fn start(config: ExecutorConfig) -> Result<Executor, ExecError> {
        let classes_dir =
            install_executor_classes(&config.cache_dir).map_err(|source| ExecError::Install {
                path: config.cache_dir.clone(),
                source,
            })?;
        let allow_security_manager =
            java_feature_version(&config.java).map(|version| (12..24).contains(&version));
        let mut executor = Executor {
            config,
            classes_dir,
            allow_security_manager,
            info: ExecutorInfo {
                java_version: String::new(),
                vm_name: String::new(),
                access_monitoring: false,
                access_monitoring_note: None,
                line_separator_settable: false,
            },
            defined: Vec::new(),
            getters_with_effects: BTreeMap::new(),
            jvm: None,
            next_id: 1,
            plans_on_loader: 0,
            starts: 0,
        };
        executor.ensure_running()?;
        Ok(executor)
    }

    /// What the JVM said about itself at its last start.
    pub fn info(&self) -> &ExecutorInfo {
        &self.info
    }

    /// The configuration the executor was started with.
    pub fn config(&self) -> &ExecutorConfig {
        &self.config
    }

    /// The working directory of the current JVM, if one runs.
    pub fn work_dir(&self) -> Option<&Path> {
        self.jvm.as_ref().map(|jvm| jvm.work_dir.as_path())
    }

    /// How many JVMs this executor has started (1 + restarts).
    pub fn jvm_starts(&self) -> u64 {
        self.starts
    }

    /// The process id of the current JVM, if one runs (for diagnostics).
    pub fn jvm_pid(&self) -> Option<u32> {
        self.jvm.as_ref().map(|jvm| jvm.child.id())
    }

    /// Makes `classes` (binary name, class file) take precedence over the
    /// classpath for every later plan, including after restarts. A class
    /// defined again replaces its earlier bytes.
    pub fn define(&mut self, classes: &[(String, Vec<u8>)]) -> Result<(), ExecError> {
        let getters = self.getters_with_effects.clone();
        self.define_with_getters(classes, getters)
    }

    /// [`Executor::define`], and from now on describes values without
    /// calling `getters_with_effects` (per class, by binary name: getters
    /// that may change the object, which a later statement would then see
    /// changed). Replaces the getters given before.
    pub fn define_with_getters(
        &mut self,
        classes: &[(String, Vec<u8>)],
        getters_with_effects: GettersWithEffects,
    ) -> Result<(), ExecError> {
        self.getters_with_effects = getters_with_effects;
        for (name, bytes) in classes {
            match self.defined.iter_mut().find(|(known, _)| known == name) {
                Some(entry) => entry.1 = bytes.clone(),
                None => self.defined.push((name.clone(), bytes.clone())),
            }
        }
        self.plans_on_loader = 0;
        if self.jvm.is_none() {
            // The next start sends everything.
            return self.ensure_running();
        }
        let getters = std::mem::take(&mut self.getters_with_effects);
        let request = Request::Define {
            id: self.take_id(),
            classes: WireClass::list(classes),
            getters_with_effects: &getters,
        };
        let sent = self.exchange::<serde_json::Value>("define", &request, REQUEST_TIMEOUT);
        self.getters_with_effects = getters;
        match sent {
            Ok(_) => Ok(()),
            Err(Failure::Jvm(_)) => {
                // Defining only stores bytes; a restart re-sends them all.
                self.stop_jvm();
                self.ensure_running()
            }
            Err(Failure::Fatal(e)) => Err(e),
        }
    }

    /// Runs `plan` with the configured time limit.
    pub fn run(&mut self, plan: &Plan) -> Result<PlanOutcome, ExecError> {
        self.run_with_timeout(plan, self.config.plan_timeout)
    }

    /// Runs `plan` with its own time limit (at most a day).
    pub fn run_with_timeout(
        &mut self,
        plan: &Plan,
        timeout: Duration,
    ) -> Result<PlanOutcome, ExecError> {
        self.run_with(
            plan,
            &RunSettings {
                timeout,
                ..RunSettings::default()
            },
        )
    }

    /// Runs `plan` as `settings` say: its time limit (at most a day), on
    /// which class loader, in which environment. A plan that kills, hangs
    /// or exhausts the JVM gives an outcome saying so (`Err` is for
    /// failures not attributable to the plan: the JVM cannot be started,
    /// or breaks the protocol).
    pub fn run_with(
        &mut self,
        plan: &Plan,
        settings: &RunSettings,
    ) -> Result<PlanOutcome, ExecError> {
        self.ensure_running()?;
        if let Some(jvm) = &self.jvm {
            // Files a previous plan wrote must not be seen by this one.
            empty_dir(&jvm.work_dir);
        }
        let fresh_loader = match settings.loader {
            LoaderChoice::Configured => match self.config.isolation {
                Isolation::PerPlan => true,
                Isolation::PerBatch { plans } => self.plans_on_loader >= plans.max(1),
            },
            LoaderChoice::Fresh => true,
            LoaderChoice::Shared => false,
        } || self.plans_on_loader == 0;
        if fresh_loader {
            self.plans_on_loader = 0;
        }
        let timeout = settings.timeout.min(MAX_PLAN_TIMEOUT);
        let timeout_ms = u64::try_from(timeout.as_millis()).expect("at most a day");
        let request = Request::Run {
            id: self.take_id(),
            timeout_ms,
            fresh_loader,
            trace_limit: self.config.trace_limit,
            summary_depth: self.config.summary_depth,
            environment: (!settings.environment.is_unchanged()).then_some(&settings.environment),
            plan,
        };
        let answer = match self.exchange::<RunAnswer>("run", &request, timeout + WATCHDOG_MARGIN) {
            Ok(answer) => answer,
            Err(Failure::Jvm(JvmFailure::NoAnswer)) => {
                self.stop_jvm();
                return Ok(PlanOutcome::without_details(PlanStatus::TimedOut));
            }
            Err(Failure::Jvm(JvmFailure::Died(reason))) => {
                self.stop_jvm();
                return Ok(PlanOutcome::without_details(PlanStatus::Crashed { reason }));
            }
            Err(Failure::Fatal(e)) => return Err(e),
        };
        self.plans_on_loader += 1;
        let exit_status = if answer.restart {
            // The JVM ends itself after this answer; the next call starts another.
            let status = self.jvm.take().and_then(|jvm| jvm.wait_for_exit());
            status.and_then(|status| status.code())
        } else {
            None
        };
        answer
            .into_outcome(exit_status)
            .map_err(ExecError::Protocol)
    }

    /// Loads and links each class (which runs the bytecode verifier)
    /// without initialising it, in a class loader of its own that also sees
    /// the defined classes and the classpath.
    pub fn verify(
        &mut self,
        classes: &[(String, Vec<u8>)],
    ) -> Result<Vec<VerifyOutcome>, ExecError> {
        self.ensure_running()?;
        let request = Request::Verify {
            id: self.take_id(),
            classes: WireClass::list(classes),
        };
        match self.exchange::<VerifyAnswer>("verify", &request, REQUEST_TIMEOUT) {
            Ok(answer) => Ok(answer.results),
            Err(Failure::Jvm(failure)) => {
                self.stop_jvm();
                Err(ExecError::Died {
                    request: "verify",
                    reason: failure.to_string(),
                })
            }
            Err(Failure::Fatal(e)) => Err(e),
        }
    }

    /// Asks the JVM to end and waits for it.
    pub fn shutdown(mut self) -> Result<(), ExecError> {
        if self.jvm.is_some() {
            let request = Request::Shutdown { id: self.take_id() };
            let answered =
                self.exchange::<serde_json::Value>("shutdown", &request, REQUEST_TIMEOUT);
            if let Some(jvm) = self.jvm.take() {
                jvm.wait_for_exit();
            }
            if let Err(Failure::Fatal(e)) = answered {
                return Err(e);
            }
        }
        Ok(())
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn stop_jvm(&mut self) {
        self.jvm = None; // dropping kills it
    }

    /// Starts a JVM if none runs: spawn, ping, send the defined classes.
    fn ensure_running(&mut self) -> Result<(), ExecError> {
        if let Some(jvm) = &mut self.jvm {
            // A JVM that died between requests is replaced before the next
            // one, which is not to blame.
            if matches!(jvm.child.try_wait(), Ok(None)) {
                return Ok(());
            }
            self.stop_jvm();
        }
        let with_flag = self.allow_security_manager.unwrap_or(true);
        let result = self.start_jvm(with_flag);
        let result = match (result, self.allow_security_manager) {
            // Unknown JDK version: JDK 24 and later refuse the flag, so try without.
            (Err(ExecError::Startup(_)), None) => self.start_jvm(false).inspect(|_| {
                self.allow_security_manager = Some(false);
            }),
            (result, _) => result.inspect(|_| {
                self.allow_security_manager = Some(with_flag);
            }),
        };
        let (jvm, info) = result?;
        self.jvm = Some(jvm);
        self.info = info;
        self.starts += 1;
        self.plans_on_loader = 0;
        if !self.defined.is_empty() || !self.getters_with_effects.is_empty() {
            let defined = std::mem::take(&mut self.defined);
            let getters = std::mem::take(&mut self.getters_with_effects);
            let request = Request::Define {
                id: self.take_id(),
                classes: WireClass::list(&defined),
                getters_with_effects: &getters,
            };
            let sent = self.exchange::<serde_json::Value>("define", &request, REQUEST_TIMEOUT);
            self.defined = defined;
            self.getters_with_effects = getters;
            match sent {
                Ok(_) => {}
                Err(Failure::Jvm(failure)) => {
                    self.stop_jvm();
                    return Err(ExecError::Startup(failure.to_string()));
                }
                Err(Failure::Fatal(e)) => return Err(e),
            }
        }
        Ok(())
    }

    fn start_jvm(
        &mut self,
        allow_security_manager: bool,
    ) -> Result<(Jvm, ExecutorInfo), ExecError> {
        let work_dir = create_work_dir(&self.config.scratch_dir)?;
        let mut command = Command::new(&self.config.java);
        command
            .arg(format!("-Xmx{}", self.config.max_heap))
            // Few GC threads on small machines, and quick to start.
            .arg("-XX:+UseSerialGC")
            // Every exception keeps its message and stack, however often thrown.
            .arg("-XX:-OmitStackTraceInFastThrow")
            .arg("-Djava.awt.headless=true")
            // Lets the executor reset its worker thread's thread-locals
            // instead of starting a thread per class loader (Worker.java).
            .arg("--add-opens=java.base/java.lang=ALL-UNNAMED");
        if allow_security_manager {
            command.arg("-Djava.security.manager=allow");
        }
        command
            .args(self.config.assertions.jvm_options())
            .args(&self.config.jvm_options)
            .arg("-cp")
            .arg(&self.classes_dir)
            .arg("dev.testgen.executor.Main")
            .args(&self.config.classpath)
            .current_dir(&work_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = command.spawn().map_err(|source| {
            let _ = fs::remove_dir_all(&work_dir);
            ExecError::Spawn {
                java: self.config.java.clone(),
                source,
            }
        })?;
        let mut jvm = Jvm::new(child, work_dir);
        let request = Request::Ping { id: self.take_id() };
        let line = serde_json::to_string(&request).expect("requests serialise");
        let answer = jvm
            .exchange(&line, Instant::now() + STARTUP_TIMEOUT)
            .map_err(|failure| ExecError::Startup(failure.to_string()))?;
        let info: ExecutorInfo = parse_answer("ping", &answer, request_id(&request))
            .map_err(|e| ExecError::Startup(e.to_string()))?;
        Ok((jvm, info))
    }

    /// Sends one request and reads its answer.
    fn exchange<T: DeserializeOwned>(
        &mut self,
        name: &'static str,
        request: &Request<'_>,
        timeout: Duration,
    ) -> Result<T, Failure> {
        let jvm = self.jvm.as_mut().ok_or(Failure::Jvm(JvmFailure::Died(
            "no executor JVM is running".to_string(),
        )))?;
        let line = serde_json::to_string(request).expect("requests serialise");
        let answer = jvm
            .exchange(&line, Instant::now() + timeout)
            .map_err(Failure::Jvm)?;
        parse_answer(name, &answer, request_id(request)).map_err(|e| {
            if matches!(e, ExecError::Protocol(_)) {
                // Out of step with the JVM: start afresh next time.
                self.stop_jvm();
            }
            Failure::Fatal(e)
        })
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        self.stop_jvm();
    }
}

fn request_id(request: &Request<'_>) -> u64 {
    match request {
        Request::Ping { id }
        | Request::Define { id, .. }
        | Request::Run { id, .. }
        | Request::Verify { id, .. }
        | Request::Shutdown { id } => *id,
    }
}

fn parse_answer<T: DeserializeOwned>(
    request: &'static str,
    line: &str,
    expected_id: u64,
) -> Result<T, ExecError> {
    let header: Header = serde_json::from_str(line)
        .map_err(|e| ExecError::Protocol(format!("unreadable answer to {request}: {e}")))?;
    if header.id != expected_id {
        return Err(ExecError::Protocol(format!(
            "answer for request {} where {expected_id} was expected",
            header.id
        )));
    }
    if let Some(message) = header.error {
        return Err(ExecError::Rejected { request, message });
    }
    serde_json::from_str(line)
        .map_err(|e| ExecError::Protocol(format!("unreadable answer to {request}: {e}")))
}

/// Why a request got no usable answer.
enum Failure {
    /// The JVM died or hung: the caller decides what that means.
    Jvm(JvmFailure),
    /// Something the caller should pass on.
    Fatal(ExecError),
}

#[derive(Debug)]
enum JvmFailure {
    NoAnswer,
    Died(String),
}

impl std::fmt::Display for JvmFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JvmFailure::NoAnswer => f.write_str("no answer in time"),
            JvmFailure::Died(reason) => f.write_str(reason),
        }
    }
}

/// One running executor JVM.
struct Jvm {
    child: Child,
    stdin: ChildStdin,
    /// Lines the JVM wrote to stdout, read by a thread so that waiting can time out.
    lines: Receiver<String>,
    /// The end of what the JVM itself wrote to stderr (the code under test's
    /// output is captured separately); explains crashes.
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Stdout lines that were not answers (a JVM crash report, for instance).
    noise: Vec<String>,
    work_dir: PathBuf,
}

impl Jvm {
    fn new(mut child: Child, work_dir: PathBuf) -> Jvm {
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if line.ends_with(b"\n") {
                            line.pop();
                        }
                        let text = String::from_utf8_lossy(&line).into_owned();
                        if sender.send(text).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let writer = Arc::clone(&tail);
        thread::spawn(move || {
            let mut stderr = stderr;
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buffer) {
                if n == 0 {
                    return;
                }
                let mut tail = writer.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend(&buffer[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
        });
        Jvm {
            child,
            stdin,
            lines,
            stderr: tail,
            noise: Vec::new(),
            work_dir,
        }
    }

    /// Writes `line` and waits until `deadline` for a JSON answer.
    fn exchange(&mut self, line: &str, deadline: Instant) -> Result<String, JvmFailure> {
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush());
        if written.is_err() {
            return Err(JvmFailure::Died(self.death_report()));
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(answer) if answer.starts_with('{') => return Ok(answer),
                Ok(noise) => {
                    if self.noise.len() < 20 {
                        self.noise.push(noise);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(JvmFailure::NoAnswer),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(JvmFailure::Died(self.death_report()))
                }
            }
        }
    }

    /// Why the JVM is gone: its exit status and last words.
    fn death_report(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                _ => break None,
            }
        };
        // Give the stderr reader a moment to catch the last bytes.
        thread::sleep(Duration::from_millis(50));
        let stderr = {
            let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
            String::from_utf8_lossy(&tail.iter().copied().collect::<Vec<u8>>()).into_owned()
        };
        let mut report = match status {
            Some(status) => format!("the JVM exited ({status})"),
            None => "the JVM stopped answering".to_string(),
        };
        for line in self.noise.iter().map(String::as_str).chain(stderr.lines()) {
            report.push_str("\n  ");
            report.push_str(line);
        }
        report
    }

    /// Waits for a JVM that announced its end, killing it if it dawdles.
    fn wait_for_exit(mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => return None, // Drop kills it.
            }
        }
    }
}

impl Drop for Jvm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.work_dir);
    }
}

/// A new, empty directory under `scratch_dir`.
fn create_work_dir(scratch_dir: &Path) -> Result<PathBuf, ExecError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let fail = |source| ExecError::WorkDir {
        path: scratch_dir.to_path_buf(),
        source,
    };
    fs::create_dir_all(scratch_dir).map_err(fail)?;
    loop {
        let dir = scratch_dir.join(format!(
            "testgen-exec-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fail(e)),
        }
    }
}

/// Removes everything inside `dir` (best effort).
fn empty_dir(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let _ = match entry.file_type() {
            Ok(kind) if kind.is_dir() => fs::remove_dir_all(&path),
            _ => fs::remove_file(&path),
        };
    }
}

/// The feature version (11, 17, 25, ...) of the JDK that `java` belongs to,
/// from the JDK's `release` file; None if it cannot be told without
/// starting a JVM.
fn java_feature_version(java: &Path) -> Option<u32> {
    let java = fs::canonicalize(java).ok()?;
    let home = java.parent()?.parent()?;
    let release = fs::read_to_string(home.join("release")).ok()?;
    let version = release
        .lines()
        .find_map(|line| line.strip_prefix("JAVA_VERSION="))?
        .trim()
        .trim_matches('"');
    let mut parts = version.split(['.', '-', '+', '_']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok() // 1.8.0 is Java 8
    } else {
        Some(first)
    }
}
