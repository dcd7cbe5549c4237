//! Counting a sandboxed command's processes from outside, for the dry
//! run's process limit: the kernel holds the sandbox at its
//! `RLIMIT_NPROC` (see [`crate::stage`]), and catui stops a command that
//! sits at the limit (a fork bomb) with a message instead of letting it
//! spin until its time limit.

use std::collections::HashMap;

/// How many tasks (threads included, as `RLIMIT_NPROC` counts them) run
/// beneath process `root`, `root` itself not counted: one pass over
/// `/proc` (each `stat` file gives the parent and the thread count;
/// orphans inside the sandbox are re-parented to its pid-namespace init,
/// so they stay beneath `root`). Processes that end during the pass are
/// skipped.
pub fn tasks_beneath(root: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    // parent -> [(pid, threads)]
    let mut children: HashMap<u32, Vec<(u32, usize)>> = HashMap::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((parent, threads)) = parse_stat(&stat) {
            children.entry(parent).or_default().push((pid, threads));
        }
    }
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for &(child, threads) in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            count += threads.max(1);
            stack.push(child);
        }
    }
    count
}

/// The parent pid and thread count of a `/proc/PID/stat` line. The
/// command name (field 2) is in parentheses and may hold spaces and
/// parentheses itself: the fields are read after its last `)`.
fn parse_stat(stat: &str) -> Option<(u32, usize)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (3), ppid (4), … num_threads (20).
    let parent = fields.get(1)?.parse().ok()?;
    let threads = fields.get(17)?.parse().ok()?;
    Some((parent, threads))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_names_are_read() {
        let line = "4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 3 0 \
                    123 456 789";
        assert_eq!(parse_stat(line), Some((17, 3)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn the_children_of_a_process_are_counted() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id();
        let mut seen = 0;
        for _ in 0..100 {
            seen = tasks_beneath(pid);
            if seen >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // SAFETY: a signal to the process group this test started.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(-(pid as i32), libc::SIGKILL);
        }
        let _ = child.wait();
        assert_eq!(seen, 2);
    }
}
