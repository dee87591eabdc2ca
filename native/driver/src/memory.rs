//! Peak resident memory of a process, for the report's figures: Linux's
//! `VmHWM` ("high water mark") from `/proc/<pid>/status`. Elsewhere, or when
//! the process is gone, the figure is unknown (`None`).

/// The peak resident set of this process, in KiB.
pub fn own_peak_rss_kib() -> Option<u64> {
    peak_rss_kib_of("self")
}

/// The peak resident set of process `pid`, in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    peak_rss_kib_of(&pid.to_string())
}

fn peak_rss_kib_of(process: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn this_process_has_a_peak() {
        let peak = own_peak_rss_kib().expect("VmHWM on Linux");
        // A Rust test binary holds at least a few hundred KiB resident.
        assert!(peak > 100, "{peak}");
        assert_eq!(peak_rss_kib(u32::MAX), None);
    }
}
