//! The three winning structures (spec "Winning structures") and small sets of them.

use std::fmt;

/// A winning structure. Ordered by name: `bridge < fork < ring` (the order of `kinds` in
/// answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A group holding two or more of the six corners.
    Bridge,
    /// A group touching three or more of the six sides (corners belong to no side).
    Fork,
    /// A closed chain of one player's stones around at least one cell.
    Ring,
}

impl Kind {
    /// All three, sorted by name.
    pub const ALL: [Kind; 3] = [Kind::Bridge, Kind::Fork, Kind::Ring];

    /// `bridge`, `fork` or `ring`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bridge => "bridge",
            Kind::Fork => "fork",
            Kind::Ring => "ring",
        }
    }

    /// Parses a name from [`Kind::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Kind`]s (three bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KindSet(u8);

impl KindSet {
    /// The structures a group's corner (bits 0..6) and side (bits 6..12) mask makes.
    pub(crate) fn of_mask(mask: u16) -> Self {
        let mut s = Self::default();
        if (mask & 0x3f).count_ones() >= 2 {
            s.insert(Kind::Bridge);
        }
        if (mask >> 6).count_ones() >= 3 {
            s.insert(Kind::Fork);
        }
        s
    }

    /// Adds `kind`.
    pub fn insert(&mut self, kind: Kind) {
        self.0 |= kind.bit();
    }

    /// True iff `kind` is in the set.
    pub fn contains(self, kind: Kind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// True iff no structure.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Union of two sets.
    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The kinds in sorted order (`bridge`, `fork`, `ring`).
    pub fn iter(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(move |&k| self.contains(k))
    }

    /// The seed's single label (`check_win`'s priority ring > fork > bridge).
    pub fn seed_kind(self) -> Option<Kind> {
        [Kind::Ring, Kind::Fork, Kind::Bridge]
            .into_iter()
            .find(|&k| self.contains(k))
    }

    /// Castro's single label (priority fork > bridge > ring), with which the spec reads Ewalds'
    /// win-type table (whose counts at L = 6 and 8 fit ring first better: README, "Havannah").
    pub fn castro_kind(self) -> Option<Kind> {
        [Kind::Fork, Kind::Bridge, Kind::Ring]
            .into_iter()
            .find(|&k| self.contains(k))
    }
}

impl FromIterator<Kind> for KindSet {
    fn from_iter<I: IntoIterator<Item = Kind>>(iter: I) -> Self {
        let mut s = Self::default();
        for k in iter {
            s.insert(k);
        }
        s
    }
}
