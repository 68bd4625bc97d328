//! When an automatic sync is due (DESIGN §15 `[sync] auto`): shortly after local changes settle
//! (debounced, so a burst of saves is one sync), and every `interval_minutes` to pull what other
//! machines sent. A sync that failed is tried again at the next of those moments, not sooner.
//!
//! Owns: that decision, as a value fed with the times things happened (time passed in).
//! Deliberately does not: run a sync, read the clock or the configuration (the runner does).

use std::time::{Duration, Instant};

/// How long local changes must be quiet before they are sent.
pub const SETTLE: Duration = Duration::from_secs(20);

#[derive(Debug, Clone)]
pub struct Schedule {
    interval: Duration,
    settle: Duration,
    /// The last local change not yet sent.
    pending_since: Option<Instant>,
    last_change: Option<Instant>,
    /// When the last sync (successful or not) finished.
    last_sync: Instant,
}

impl Schedule {
    /// A schedule whose first pull is one `interval` after `start` (the app syncs at start only
    /// when something changed).
    pub fn new(interval: Duration, settle: Duration, start: Instant) -> Schedule {
        Schedule {
            interval: interval.max(Duration::from_secs(60)),
            settle,
            pending_since: None,
            last_change: None,
            last_sync: start,
        }
    }

    pub fn set_interval(&mut self, interval: Duration) {
        self.interval = interval.max(Duration::from_secs(60));
    }

    /// A memory changed here at `at`.
    pub fn changed(&mut self, at: Instant) {
        self.pending_since.get_or_insert(at);
        self.last_change = Some(at);
    }

    /// A sync that started at `started` finished at `at`: what changed before it started went
    /// with it (a change during it waits for the next one).
    pub fn synced(&mut self, started: Instant, at: Instant) {
        if self.last_change.is_some_and(|c| c <= started) {
            self.pending_since = None;
        }
        self.last_sync = at;
    }

    /// When the next sync is due.
    pub fn next_due(&self) -> Instant {
        let pull = self.last_sync + self.interval;
        match self.last_change.filter(|_| self.pending_since.is_some()) {
            Some(change) => pull.min(change + self.settle),
            None => pull,
        }
    }

    pub fn due(&self, now: Instant) -> bool {
        now >= self.next_due()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_sent_once_quiet_and_pulls_come_every_interval() {
        let t0 = Instant::now();
        let s = |secs: u64| t0 + Duration::from_secs(secs);
        let mut schedule = Schedule::new(Duration::from_secs(600), SETTLE, t0);
        assert!(
            !schedule.due(s(599)) && schedule.due(s(600)),
            "a pull every interval"
        );
        // A burst of saves: due 20 s after the last of them, not the first.
        schedule.changed(s(10));
        schedule.changed(s(25));
        assert!(!schedule.due(s(44)) && schedule.due(s(45)));
        schedule.synced(s(45), s(46));
        assert_eq!(schedule.next_due(), s(646), "sent: the next is the pull");
        // A change during a sync is sent by the next one.
        schedule.changed(s(100));
        schedule.synced(s(99), s(101));
        assert_eq!(schedule.next_due(), s(120));
        // An interval below a minute is taken as a minute.
        let fast = Schedule::new(Duration::from_secs(1), SETTLE, t0);
        assert_eq!(fast.next_due(), s(60));
    }
}
