//! (4, n, 7^tr) as a proof-number-search [`Game`], with the PNS+ reductions of the paper
//! (Czifra et al., Sec. IV; `shared/specs/seven-in-a-row.md`), each switchable by name.
//!
//! OR = Maker to move; "proven" = Maker wins.

use std::fmt;
use std::sync::OnceLock;

use super::board::{Cell, Cols, cells_of};
use super::hypergraph::Hypergraph;
use super::position::{Key, Position, Side};
use crate::pns::{Formula, Game, NodeType, Number, Value};

/// A PNS+ technique that can be switched off for ablation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Technique {
    /// Forced moves (spec, "PNS+ reductions"): Breaker must take the cell of a 1-line (two
    /// distinct 1-line cells: Maker wins) and, with none, must stop every genuine crossing of
    /// two 2-lines (by taking it or, when it has exactly two partner cells, one of them; no
    /// such move: Maker wins); Maker with a genuine crossing plays it. Breaker's crossing rule
    /// follows from Thm IV.1: a genuine crossing left empty is Maker's next move and his win,
    /// and only the crossing or, with exactly two partners, a partner's cell unmakes it.
    ForcedMove,
    /// Maker-win stop (Thm IV.1): Maker to move with a 1-line, or with a cell in two 2-lines
    /// whose other cells differ, wins.
    MakerWinStop,
    /// Breaker-win stop: Breaker to move and `phi < 1` (Erdős–Selfridge, the stronger form of
    /// Thm II.1 that the anchor code uses; `pot < 1` is the paper's statement).
    BreakerWinStop,
    /// Dead squares: an empty cell on no free line is given to Breaker.
    DeadSquares,
    /// Dominated squares and partial pairing (spec, "PNS+ reductions"): two cells that lie only
    /// in the same free line are paired off (the line is killed); a cell lying only in a
    /// 2-line is never played when the line's other cell lies in more lines (that cell
    /// dominates it for both sides). Move generation goes further than the spec's rule: it
    /// skips every empty cell x that another empty cell y dominates (y on every free line
    /// through x), since in a Maker-Breaker game claiming y does for each of x's lines what
    /// claiming x does, so y is at least as good a move for either side; of cells on exactly
    /// the same free lines only the lowest is played.
    DominatedSquares,
    /// The transposition key is mirror-canonical (`c -> n-1-c`).
    MirrorTt,
    /// Heuristic pn/dn initialisation (spec, "Heuristic initialisation"): pn = 1 + 10
    /// P(Breaker wins) from the anchor's logistic regression, times the number of moves at an
    /// AND node; dn = 1000^phi, and for the OR children of an expanded AND node the paper's
    /// sibling-relative form 1000^(phi(parent) - phi(s) + phi(child)), s the new OR child with
    /// the smallest phi. The exponents use the anchor's phi = pot / 2 where the paper writes
    /// pot (spec, "Lines and potential"), and both numbers are scaled by 100 (integers that
    /// keep the fractions of the estimates).
    Heuristics,
    /// Residual components (spec, "Residual hypergraph"): a position whose free lines fall into
    /// two or more connected components is decided by its components. Maker to move: Maker
    /// wins iff he wins some component moving first. Breaker to move: Maker wins iff he wins
    /// some component with Breaker moving first there, or wins two components moving first.
    Components,
    /// Cut vertex (Thm IV.2): Maker to move on a connected residual hypergraph H = H1 ∪ H2
    /// whose two halves share only the cell v wins iff he wins H1, or H2, or both H1 and H2
    /// with v his (moving first in each). Checked against brute force on every cut vertex
    /// and split of 9,000 random positions (n = 4..6) in `tests/seven_solver.rs`.
    CutVertex,
    /// Threat-space search for Maker (after Allis, van den Herik and Huntjens, "Go-Moku solved
    /// by new search techniques", Computational Intelligence 12(1), 1996), with the threats of
    /// this game: Maker to move wins when he has a forcing sequence, a series of moves each of
    /// which makes a 1-line, so that Breaker's reply is forced (he has no threats of his own
    /// and must take the 1-line's cell), ending in a move that makes two 1-lines with
    /// different cells (the position of Thm IV.1). The search looks at most at
    /// [`THREAT_STATES`] positions of such sequences per position; missing a sequence only
    /// leaves the position to the proof-number search.
    ThreatSpace,
}

impl Technique {
    /// Every technique, in a fixed order.
    pub const ALL: [Technique; 10] = [
        Technique::ForcedMove,
        Technique::MakerWinStop,
        Technique::BreakerWinStop,
        Technique::DeadSquares,
        Technique::DominatedSquares,
        Technique::MirrorTt,
        Technique::Heuristics,
        Technique::Components,
        Technique::CutVertex,
        Technique::ThreatSpace,
    ];

    /// The technique's name on the command line and the wire.
    pub fn name(self) -> &'static str {
        match self {
            Technique::ForcedMove => "forced-move",
            Technique::MakerWinStop => "maker-win-stop",
            Technique::BreakerWinStop => "breaker-win-stop",
            Technique::DeadSquares => "dead-squares",
            Technique::DominatedSquares => "dominated-squares",
            Technique::MirrorTt => "mirror-tt",
            Technique::Heuristics => "heuristics",
            Technique::Components => "components",
            Technique::CutVertex => "cut-vertex",
            Technique::ThreatSpace => "threat-space",
        }
    }

    /// True for the techniques [`Rules::new`] switches on unless told otherwise (all of them
    /// now; a technique that costs more than it saves would be off by default).
    pub fn on_by_default(self) -> bool {
        true
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown technique name; it carries the name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown technique {0:?} (known: forced-move, maker-win-stop, breaker-win-stop, dead-squares, dominated-squares, mirror-tt, heuristics, components, cut-vertex, threat-space)"
)]
pub struct UnknownTechnique(pub String);

impl std::str::FromStr for Technique {
    type Err = UnknownTechnique;
    fn from_str(s: &str) -> Result<Self, UnknownTechnique> {
        Technique::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownTechnique(s.to_string()))
    }
}

/// What a search of this game shares: the hypergraph and the techniques switched on. A copy
/// is two words: the hypergraph is the paper's of its width, built once per process and
/// shared by every `Rules` of that width.
#[derive(Clone, Copy)]
pub struct Rules {
    hg: &'static Hypergraph,
    /// The techniques switched on, one bit each (bit `t as u32`): asked at every step of
    /// every simplification.
    enabled: u16,
}

// Every technique has its bit in `Rules::enabled`.
const _: () = assert!(Technique::ALL.len() <= u16::BITS as usize);

impl Rules {
    /// The paper's hypergraph for `cols` with the techniques that are on by default
    /// ([`Technique::on_by_default`]) except `disabled`.
    pub fn new(cols: Cols, disabled: &[Technique]) -> Self {
        Self::with_enabled(
            cols,
            &Technique::ALL
                .into_iter()
                .filter(|t| t.on_by_default() && !disabled.contains(t))
                .collect::<Vec<_>>(),
        )
    }

    /// The paper's hypergraph for `cols` with exactly the techniques `enabled` (an empty list
    /// is plain PNS, its transposition table keyed by the residual position: Maker stones on
    /// no free line count as Breaker's, see `Game::key`; not mirror-canonical).
    pub fn with_enabled(cols: Cols, enabled: &[Technique]) -> Self {
        Rules {
            hg: paper(cols),
            enabled: enabled.iter().fold(0, |bits, &t| bits | 1 << t as u32),
        }
    }

    /// True when `t` is switched on.
    pub fn enabled(&self, t: Technique) -> bool {
        self.enabled & 1 << t as u32 != 0
    }

    /// The hypergraph.
    pub fn hypergraph(&self) -> &'static Hypergraph {
        self.hg
    }
}

/// Rules are equal when their widths and techniques are.
impl PartialEq for Rules {
    fn eq(&self, other: &Self) -> bool {
        self.hg.cols() == other.hg.cols() && self.enabled == other.enabled
    }
}

impl Eq for Rules {}

/// The paper's hypergraph of width `cols`, built on first use and kept for the life of the
/// process (29 widths at most). Positions point to it without a reference count: with a
/// count, two search threads updated one shared counter on every position they created or
/// dropped, each update moving its cache line between the cores; with none, two threads of the
/// shared search ([`crate::pns::Shared`]) at n = 12 made 3% to 8% more nodes a second (one
/// thread 2%; runs interleaved, 2026-11-25).
fn paper(cols: Cols) -> &'static Hypergraph {
    const WIDTHS: usize = Cols::MAX as usize + 1;
    static PAPER: [OnceLock<Hypergraph>; WIDTHS] = [const { OnceLock::new() }; WIDTHS];
    PAPER[cols.get() as usize].get_or_init(|| Hypergraph::paper(cols))
}

impl fmt::Debug for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = Technique::ALL.into_iter().filter(|&t| self.enabled(t));
        f.debug_struct("Rules")
            .field("cols", &self.hg.cols().get())
            .field("enabled", &on.map(Technique::name).collect::<Vec<_>>())
            .finish()
    }
}

/// A (4, n, 7^tr) position as a PNS [`Game`].
#[derive(Clone)]
pub struct SevenGame {
    pos: Position,
    /// [`Rules::hg`], stored flat with `enabled` so that a position stays 64 bytes.
    hg: &'static Hypergraph,
    /// [`Rules::enabled`].
    enabled: u16,
    /// Simplification must not play forced moves (which pass the turn): set for a game made by
    /// [`SevenGame::new`], the root of a search, so that the root's children are the moves of
    /// the side to move there. Not part of the key (forced moves keep the value).
    hold_turn: bool,
    /// What the estimate reads of the position, kept by [`Game::prepare`] (and, for Maker to
    /// move, by [`Game::simplify`] at its fixpoint) until the position changes: `phi * 128` and
    /// the number of moves, counted with Breaker to move only ([`UNPREPARED`] until prepared).
    /// Two fields rather than an `Option` of a pair, so that a position stays 64 bytes.
    prepared_phi: u32,
    prepared_moves: u8,
}

/// `SevenGame::prepared_moves` before [`Game::prepare`] (a position has at most 128 moves).
const UNPREPARED: u8 = u8::MAX;

impl fmt::Debug for SevenGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SevenGame({} {})", self.pos, self.pos.to_move())
    }
}

/// The free lines of a position: for every edge with no Breaker cell, its empty cells.
struct Lines {
    /// Empty cells of each free line.
    residual: Vec<u128>,
    /// Union of the free lines' empty cells.
    live: u128,
    /// Cells of 1-lines.
    ones: u128,
    /// Cells on two or more free lines (the others of `live` are on exactly one).
    multi: u128,
    /// A genuine crossing of two 2-lines (two 2-lines through it with different other cells).
    crossing: Option<Cell>,
    /// Breaker's only moves that stop every crossing (Maker playing a crossing makes two
    /// 1-lines with different cells): the intersection, over crossings v, of {v} plus v's two
    /// partners when it has exactly two. All cells when there is no crossing.
    defences: u128,
    /// True when Maker owns a whole edge.
    maker_won: bool,
    /// `phi * 128` = Σ over free lines of `2^(7 - l)` (exact; see [`super::Potential`]).
    phi_num: u64,
}

impl Lines {
    fn of(pos: &Position, hg: &Hypergraph) -> Lines {
        let empty = pos.empty_cells();
        let mut l = Lines {
            residual: Vec::with_capacity(hg.edges().len()),
            live: 0,
            ones: 0,
            multi: 0,
            crossing: None,
            defences: u128::MAX,
            maker_won: false,
            phi_num: 0,
        };
        for &e in hg.edges() {
            if e & pos.breaker() != 0 {
                continue;
            }
            let r = e & empty;
            l.phi_num += 1u64 << (7 - r.count_ones());
            if r == 0 {
                l.maker_won = true;
            } else if !two_or_more(r) {
                l.ones |= r;
            }
            l.multi |= l.live & r;
            l.live |= r;
            l.residual.push(r);
        }
        thread_local! {
            /// The scratch of [`two_line_cells`] for this thread.
            static PARTNERS: std::cell::RefCell<[u128; 128]> =
                const { std::cell::RefCell::new([0; 128]) };
        }
        PARTNERS.with_borrow_mut(|partners| {
            two_line_cells(&l.residual, partners, |x, p| {
                if !two_or_more(p) {
                    return;
                }
                l.crossing.get_or_insert(x);
                // Three or more partners: no partner stops every threat, only x itself does.
                l.defences &= if two_or_more(p & p.wrapping_sub(1)) {
                    x.bit()
                } else {
                    x.bit() | p
                };
            });
        });
        l
    }
}

/// Whether the cell set `m` has two cells or more. This and [`exactly_two`] test sizes in the
/// hottest loops of simplification without a population count, for which x86-64's baseline
/// instruction set has no instruction (a count of 128 bits takes some 25 instructions there).
fn two_or_more(m: u128) -> bool {
    m & m.wrapping_sub(1) != 0
}

/// Whether the cell set `m` has exactly two cells (see [`two_or_more`]).
fn exactly_two(m: u128) -> bool {
    let rest = m & m.wrapping_sub(1);
    rest != 0 && !two_or_more(rest)
}

/// Calls `each(x, partners)` for every cell x of the 2-lines among `lines`, in cell order,
/// with x's partners: the other cells of its 2-lines (two or more make x a genuine crossing:
/// Maker's move there makes 1-lines at different cells; two edges with the same two empty
/// cells give one partner). `scratch` must be all zero, and is again afterwards: each entry is
/// taken back before `each` sees it, so that callers keep one scratch array instead of zeroing
/// 2 KiB at every call.
fn two_line_cells(lines: &[u128], scratch: &mut [u128; 128], mut each: impl FnMut(Cell, u128)) {
    let mut twos = 0;
    for &l in lines.iter().filter(|&&l| exactly_two(l)) {
        let a = l & l.wrapping_neg();
        scratch[a.trailing_zeros() as usize] |= l & !a;
        scratch[(l & !a).trailing_zeros() as usize] |= a;
        twos |= l;
    }
    for x in cells_of(twos) {
        each(x, std::mem::take(&mut scratch[x.index()]));
    }
}

impl SevenGame {
    /// The game at `pos` under `rules`.
    ///
    /// # Errors
    /// A message when the width differs from the rules' hypergraph.
    pub fn new(pos: Position, rules: Rules) -> Result<Self, String> {
        if pos.cols() != rules.hg.cols() {
            return Err(format!(
                "position is {} wide, rules are for {}",
                pos.cols(),
                rules.hg.cols()
            ));
        }
        Ok(SevenGame {
            pos,
            hg: rules.hg,
            enabled: rules.enabled,
            hold_turn: true,
            prepared_phi: 0,
            prepared_moves: UNPREPARED,
        })
    }

    /// The rules the game is played under.
    pub fn rules(&self) -> Rules {
        Rules {
            hg: self.hg,
            enabled: self.enabled,
        }
    }

    fn derived(&self, pos: Position) -> SevenGame {
        SevenGame {
            pos,
            hg: self.hg,
            enabled: self.enabled,
            hold_turn: false,
            prepared_phi: 0,
            prepared_moves: UNPREPARED,
        }
    }

    /// The current (possibly simplified) position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// One round of the decisions and reductions. `Err(value)` when decided, `Ok(None)` when the
    /// position changed (run again), `Ok(Some(lines))` at the fixpoint, with its free lines.
    fn step(&mut self) -> Result<Option<Lines>, Value> {
        let rules = self.rules();
        let l = Lines::of(&self.pos, rules.hg);
        if l.maker_won {
            return Err(Value::Proven);
        }
        if l.residual.is_empty() {
            return Err(Value::Disproven);
        }
        let (forced, maker_stop) = (
            rules.enabled(Technique::ForcedMove),
            rules.enabled(Technique::MakerWinStop),
        );
        match self.pos.to_move() {
            Side::Maker => {
                if maker_stop && (l.ones != 0 || l.crossing.is_some()) || forced && l.ones != 0 {
                    return Err(Value::Proven);
                }
            }
            Side::Breaker => {
                if (forced || maker_stop) && two_or_more(l.ones) {
                    return Err(Value::Proven);
                }
                if forced && l.ones == 0 && l.defences & self.pos.empty_cells() == 0 {
                    // No single Breaker move stops every crossing: Maker plays one and wins.
                    return Err(Value::Proven);
                }
                if rules.enabled(Technique::BreakerWinStop) && l.ones == 0 && l.phi_num < 128 {
                    return Err(Value::Disproven);
                }
                if forced && !self.hold_turn {
                    // Breaker's only move that does not lose at once: play it (the turn passes).
                    let only = if l.ones != 0 {
                        l.ones
                    } else if l.crossing.is_some() {
                        l.defences & self.pos.empty_cells()
                    } else {
                        0
                    };
                    if only.count_ones() == 1 {
                        self.pos.assign(Side::Breaker, only);
                        self.pos = self.pos.with_to_move(Side::Maker);
                        return Ok(None);
                    }
                }
            }
        }
        let empty = self.pos.empty_cells();
        if rules.enabled(Technique::DeadSquares) && empty & !l.live != 0 {
            self.pos.assign(Side::Breaker, empty & !l.live);
            return Ok(None);
        }
        if rules.enabled(Technique::DominatedSquares)
            && self.pos.to_move() == Side::Maker
            && !self.hold_turn
        {
            // A 2-line {a, b} with `a` on no other free line: Maker takes `b` (which dominates
            // `a`) and Breaker must answer on `a`; Maker is to move again (spec, "Dominated
            // squares"; the anchor code does this at every OR node).
            for &r in l.residual.iter().filter(|&&r| exactly_two(r)) {
                let (a, b) = (r & r.wrapping_neg(), r & (r - 1));
                let (lonely, other) = match (a & l.multi == 0, b & l.multi == 0) {
                    (true, false) => (a, b),
                    (false, true) => (b, a),
                    _ => continue,
                };
                self.pos.assign(Side::Maker, other);
                self.pos.assign(Side::Breaker, lonely);
                return Ok(None);
            }
        }
        if rules.enabled(Technique::DominatedSquares) {
            for &r in &l.residual {
                let lonely = r & !l.multi;
                if two_or_more(lonely) {
                    // Pairing: Maker takes one, Breaker the other; the line dies and both cells
                    // lie on no other free line, so both may as well be Breaker's.
                    let first = lonely & lonely.wrapping_neg();
                    let rest = lonely & !first;
                    let two = first | (rest & rest.wrapping_neg());
                    self.pos.assign(Side::Breaker, two);
                    return Ok(None);
                }
            }
        }
        Ok(Some(l))
    }

    /// The threat-space decision ([`Technique::ThreatSpace`]) at the fixpoint of the other
    /// reductions, whose free lines are `l`: Maker to move with a forcing sequence wins.
    fn threats(&self, l: &Lines) -> Option<Value> {
        (self.rules().enabled(Technique::ThreatSpace)
            && self.pos.to_move() == Side::Maker
            && l.ones == 0
            && l.crossing.is_none()
            && ThreatSpace::search(&l.residual))
        .then_some(Value::Proven)
    }

    /// The cells worth playing: forced moves first, else every live cell minus dominated ones.
    fn moves(&self) -> u128 {
        self.moves_from(&Lines::of(&self.pos, self.hg))
    }

    /// [`Self::moves`] from the position's free lines.
    fn moves_from(&self, l: &Lines) -> u128 {
        let rules = self.rules();
        let empty = self.pos.empty_cells();
        if rules.enabled(Technique::ForcedMove) {
            match self.pos.to_move() {
                Side::Breaker if l.ones != 0 => return l.ones,
                Side::Breaker if l.crossing.is_some() => return l.defences & empty,
                Side::Maker => {
                    if let Some(c) = l.crossing {
                        return c.bit();
                    }
                }
                _ => {}
            }
        }
        if rules.enabled(Technique::DominatedSquares) {
            undominated(&l.residual, empty)
        } else {
            empty
        }
    }
}

/// Positions of forcing sequences that the threat-space search ([`Technique::ThreatSpace`])
/// looks at, at most, per position: a bound for pathological positions only. On the empty
/// boards n = 10..13 this bound and one of 100,000 give the same node counts, while bounds
/// of 16 to 128 miss sequences (n = 13: 3.3 M to 4.1 M nodes instead of 3.1 M).
pub const THREAT_STATES: u32 = 4096;

/// Maker's threat-space search ([`Technique::ThreatSpace`]) in a residual hypergraph.
struct ThreatSpace {
    /// Positions of a sequence still allowed.
    budget: u32,
    /// The free lines of the positions on the current sequence, one after another (each
    /// position's lines are a range of it).
    lines: Vec<u128>,
    /// The positions reached (Maker's cells, Breaker's cells of the sequence so far).
    seen: rustc_hash::FxHashSet<(u128, u128)>,
    /// The scratch of [`two_line_cells`] (all zero between uses).
    partners: [u128; 128],
    /// The Maker moves of the positions on the current sequence, each with Breaker's forced
    /// reply, one position's after another.
    replies: Vec<(u128, u128)>,
}

impl ThreatSpace {
    /// Whether Maker, to move, has a forcing sequence in the free lines `lines` (their empty
    /// cells; none a 1-line) found within [`THREAT_STATES`] positions.
    fn search(lines: &[u128]) -> bool {
        thread_local! {
            /// One space per thread, reused: its set of positions reached grows to thousands
            /// of entries, and growing a new one for every search cost 6 to 9% of a solve.
            static SPACE: std::cell::RefCell<ThreatSpace> = const {
                std::cell::RefCell::new(ThreatSpace {
                    budget: 0,
                    lines: Vec::new(),
                    seen: rustc_hash::FxHashSet::with_hasher(rustc_hash::FxBuildHasher),
                    partners: [0; 128],
                    replies: Vec::new(),
                })
            };
        }
        SPACE.with_borrow_mut(|ts| {
            ts.budget = THREAT_STATES;
            ts.lines.clear();
            ts.lines.extend_from_slice(lines);
            ts.seen.clear();
            ts.replies.clear();
            // `partners` is zero between uses (see `two_line_cells`).
            ts.descend(0, 0, 0)
        })
    }

    /// Tries every Maker move that makes a 1-line, from the position where the sequence so
    /// far gave Maker `maker` and Breaker `breaker` and left the free lines
    /// `self.lines[start..]` (none a 1-line).
    fn descend(&mut self, start: usize, maker: u128, breaker: u128) -> bool {
        let end = self.lines.len();
        // The cells of the 2-lines, each with its partners (the other cells of its 2-lines):
        // Maker's move at x makes 1-lines at exactly x's partners.
        let first = self.replies.len();
        let replies = &mut self.replies;
        two_line_cells(&self.lines[start..end], &mut self.partners, |x, p| {
            replies.push((x.bit(), p));
        });
        let last = self.replies.len();
        // Two partners: Maker's move there is a double threat, and wins.
        let mut won = self.replies[first..last]
            .iter()
            .any(|&(_, reply)| two_or_more(reply));
        for i in first..last {
            if won || self.budget == 0 {
                break;
            }
            // Breaker's reply is forced: the partner, the cell of the 1-line Maker made.
            let (x, reply) = self.replies[i];
            let (maker, breaker) = (maker | x, breaker | reply);
            if !self.seen.insert((maker, breaker)) {
                continue;
            }
            self.budget -= 1;
            for j in start..end {
                let l = self.lines[j];
                if l & reply == 0 {
                    self.lines.push(l & !x);
                }
            }
            won = self.descend(end, maker, breaker);
            self.lines.truncate(end);
        }
        self.replies.truncate(first);
        won
    }
}

/// The empty cells that no other empty cell dominates. Cell `y` dominates `x` when every free
/// line through `x` also passes through `y`: in a Maker-Breaker game `y` is then at least as
/// good a move as `x` for either side (claiming `y` does for every line what claiming `x`
/// does). Of cells on exactly the same free lines only the lowest is kept, so every removed
/// cell is dominated by a kept one and the set is never empty when `empty` is not.
fn undominated(residual: &[u128], empty: u128) -> u128 {
    // More than 128 free lines: compare only by the first 128 would be unsound; keep all.
    if residual.len() > 128 {
        return empty;
    }
    // For each cell, the free lines through it (as a bit set over `residual`) and the cells on
    // all of them: a cell that dominates x is one of those.
    let mut lines_of = [0u128; 128];
    let mut on_all = [u128::MAX; 128];
    for (i, &r) in residual.iter().enumerate() {
        for c in cells_of(r) {
            lines_of[c.index()] |= 1u128 << i;
            on_all[c.index()] &= r;
        }
    }
    let mut kept = empty;
    for x in cells_of(empty) {
        let lx = lines_of[x.index()];
        let dominated = cells_of(on_all[x.index()] & empty & !x.bit())
            .any(|y| lines_of[y.index()] != lx || y < x);
        if dominated {
            kept &= !x.bit();
        }
    }
    kept
}

impl Game for SevenGame {
    type Key = Key;
    type Move = Cell;

    fn node_type(&self) -> NodeType {
        match self.pos.to_move() {
            Side::Maker => NodeType::Or,
            Side::Breaker => NodeType::And,
        }
    }

    fn simplify(&mut self) -> Option<Value> {
        self.prepared_moves = UNPREPARED;
        loop {
            let lines = match self.step() {
                Err(v) => return Some(v),
                Ok(None) => continue,
                Ok(Some(lines)) => lines,
            };
            let value = self.threats(&lines);
            if value.is_none()
                && self.pos.to_move() == Side::Maker
                && self.rules().enabled(Technique::Heuristics)
            {
                // Prepared now from the fixpoint's lines: with Maker to move that is cheap (no
                // moves to count, see `measure`); with Breaker to move it waits for `prepare`,
                // since a position found in the table needs no estimate.
                (self.prepared_phi, self.prepared_moves) = self.measure_lines(&lines);
            }
            return value;
        }
    }

    fn children(&self) -> Vec<(Cell, Self)> {
        cells_of(self.moves())
            .filter_map(|c| {
                let pos = self.pos.play(c).ok()?;
                Some((c, self.derived(pos)))
            })
            .collect()
    }

    /// The residual game's key: Maker stones on no free line count as Breaker's (they can no
    /// longer matter), then mirror-canonical when [`Technique::MirrorTt`] is on.
    fn key(&self) -> Key {
        let hg = self.hg;
        let empty = self.pos.empty_cells();
        let free = hg
            .edges()
            .iter()
            .filter(|&&e| e & self.pos.breaker() == 0)
            .fold(0u128, |m, &e| m | e);
        let maker = self.pos.maker() & free;
        let breaker = hg.cols().full_mask() & !maker & !empty;
        let norm = Position::from_masks(hg.cols(), maker, breaker, self.pos.to_move())
            .expect("normalised masks stay disjoint and on the board");
        if self.rules().enabled(Technique::MirrorTt) {
            norm.canonical_key()
        } else {
            norm.key()
        }
    }

    fn estimate(&self) -> (Number, Number) {
        if !self.rules().enabled(Technique::Heuristics) {
            return (1, 1);
        }
        let f = self.features();
        (f.pn(), scaled_power(f.phi))
    }

    /// The anchor's initialisation (spec, "Heuristic initialisation"), with the paper's
    /// sibling-relative dn for the OR children of an AND node.
    fn estimate_children(&self, children: &[&Self]) -> Vec<(Number, Number)> {
        if !self.rules().enabled(Technique::Heuristics) {
            return vec![(1, 1); children.len()];
        }
        let features: Vec<Features> = children.iter().map(|c| c.features()).collect();
        // The parent's potential, for the relative dn: only at an AND node (Breaker to move).
        // A leaf's position was prepared when it was made (outside a shared search's lock),
        // so this reads what `prepare` measured instead of counting the lines again.
        let relative = (self.pos.to_move() == Side::Breaker).then(|| self.features().phi);
        let phi_min = features
            .iter()
            .filter(|f| !f.and)
            .map(|f| f.phi)
            .fold(f64::INFINITY, f64::min);
        features
            .iter()
            .map(|f| {
                let exponent = match relative {
                    Some(phi_parent) if !f.and => phi_parent - phi_min + f.phi,
                    _ => f.phi,
                };
                (f.pn(), scaled_power(exponent))
            })
            .collect()
    }

    fn prepare(&mut self) {
        if self.rules().enabled(Technique::Heuristics) && self.prepared_moves == UNPREPARED {
            (self.prepared_phi, self.prepared_moves) = self.measure();
        }
    }

    fn decompose(&self) -> Option<Formula<Self>> {
        let (components_on, cut_vertex_on) = (
            self.rules().enabled(Technique::Components),
            self.rules().enabled(Technique::CutVertex) && self.pos.to_move() == Side::Maker,
        );
        if !components_on && !cut_vertex_on {
            return None;
        }
        let lines = residual(self.hg, &self.pos);
        let parts = if components_on {
            components(&lines)
        } else {
            Vec::new()
        };
        if parts.len() < 2 {
            return if cut_vertex_on {
                self.cut_vertex(&lines)
            } else {
                None
            };
        }
        let empty = self.pos.empty_cells();
        // Component `c` alone: every other empty cell goes to Breaker, which kills exactly the
        // free lines of the other components.
        let part = |c: u128, side: Side| {
            let mut pos = self.pos.with_to_move(side);
            pos.assign(Side::Breaker, empty & !c);
            Formula::Position(self.derived(pos))
        };
        let mut any: Vec<Formula<Self>> = Vec::new();
        match self.pos.to_move() {
            Side::Maker => any.extend(parts.iter().map(|&c| part(c, Side::Maker))),
            Side::Breaker => {
                any.extend(parts.iter().map(|&c| part(c, Side::Breaker)));
                for (i, &a) in parts.iter().enumerate() {
                    for &b in &parts[i + 1..] {
                        any.push(Formula::All(vec![
                            part(a, Side::Maker),
                            part(b, Side::Maker),
                        ]));
                    }
                }
            }
        }
        Some(Formula::Any(any))
    }
}

impl SevenGame {
    /// The cut-vertex split (Thm IV.2) of a Maker-to-move position whose residual hypergraph
    /// has a cut vertex v: Maker wins iff he wins H1, or H2, or both with v his. H1 is v with
    /// the smallest part the residual falls into without v, H2 is v with the rest; of several
    /// cut vertices the one whose smallest part is largest. A half is the position with every
    /// empty cell outside it given to Breaker (which kills exactly the other half's lines).
    /// `lines` is the position's residual hypergraph ([`residual`]).
    fn cut_vertex(&self, lines: &[u128]) -> Option<Formula<Self>> {
        let empty = self.pos.empty_cells();
        let (v, small) = cut_vertices(lines)
            .into_iter()
            .filter_map(|v| {
                let parts =
                    connected_parts(lines.iter().map(|&l| l & !v).filter(|&l| l != 0).collect());
                let smallest = parts.into_iter().min_by_key(|p| p.count_ones())?;
                Some((v, smallest))
            })
            .max_by_key(|&(v, p)| (p.count_ones(), std::cmp::Reverse(v.trailing_zeros())))?;
        let live = lines.iter().fold(0, |m, &l| m | l);
        let half = |cells: u128, v_maker: bool| {
            let mut pos = self.pos;
            pos.assign(Side::Breaker, empty & !cells);
            if v_maker {
                pos.assign(Side::Maker, v);
            }
            Formula::Position(self.derived(pos))
        };
        let (h1, h2) = (small | v, (live & !small) | v);
        Some(Formula::Any(vec![
            half(h1, false),
            half(h2, false),
            Formula::All(vec![half(h1, true), half(h2, true)]),
        ]))
    }
}

/// The cut vertices (as one-cell masks, lowest first) of the connected hypergraph whose edges
/// are `lines`: cells whose removal leaves the other cells of the lines in two or more
/// connected parts. Articulation points of the cell-line incidence graph that are cells
/// (Hopcroft and Tarjan's depth-first low-point method). Empty for more than 128 lines.
fn cut_vertices(lines: &[u128]) -> Vec<u128> {
    // A line of one cell connects nothing (and would make its cell look like a cut vertex).
    let lines: Vec<u128> = lines.iter().copied().filter(|&l| two_or_more(l)).collect();
    if lines.len() < 2 || lines.len() > 128 {
        return Vec::new();
    }
    // Nodes: cells 0..128, lines 128.. .
    let mut lines_of = [0u128; 128];
    for (i, &l) in lines.iter().enumerate() {
        for c in cells_of(l) {
            lines_of[c.index()] |= 1u128 << i;
        }
    }
    let neighbours = |node: usize| -> u128 {
        if node < 128 {
            lines_of[node]
        } else {
            lines[node - 128]
        }
    };
    let to_node = |from: usize, bit: u32| -> usize {
        if from < 128 {
            128 + bit as usize
        } else {
            bit as usize
        }
    };
    const UNSEEN: u16 = u16::MAX;
    let mut disc = [UNSEEN; 256];
    let mut low = [0u16; 256];
    let mut cut = 0u128;
    let root = lines[0].trailing_zeros() as usize;
    let mut time = 0u16;
    disc[root] = time;
    low[root] = time;
    let mut root_children = 0;
    // Frames: (node, its DFS parent, neighbours not yet looked at).
    let mut stack: Vec<(usize, usize, u128)> = vec![(root, usize::MAX, neighbours(root))];
    while let Some(&mut (node, parent, ref mut rest)) = stack.last_mut() {
        if *rest != 0 {
            let bit = rest.trailing_zeros();
            *rest &= *rest - 1;
            let next = to_node(node, bit);
            if next == parent {
                continue;
            }
            if disc[next] == UNSEEN {
                time += 1;
                disc[next] = time;
                low[next] = time;
                stack.push((next, node, neighbours(next)));
            } else {
                low[node] = low[node].min(disc[next]);
            }
            continue;
        }
        stack.pop();
        if parent == usize::MAX {
            continue;
        }
        low[parent] = low[parent].min(low[node]);
        if parent == root {
            root_children += 1;
        } else if parent < 128 && low[node] >= disc[parent] {
            cut |= 1u128 << parent;
        }
    }
    if root_children >= 2 {
        cut |= 1u128 << root;
    }
    cells_of(cut).map(|c| c.bit()).collect()
}

/// What the heuristic initialisation reads of a simplified position.
struct Features {
    /// Breaker to move.
    and: bool,
    /// The anchor's potential `phi = Σ x_l 2^-l`.
    phi: f64,
    /// Empty cells.
    empties: u32,
    /// Moves the search would generate, with Breaker to move (0 with Maker to move: only
    /// [`Features::pn`] at AND nodes reads it).
    moves: u32,
}

/// Both heuristic numbers are scaled by this so that their fractional parts survive in
/// integers.
const SCALE: f64 = 100.0;

impl Features {
    /// pn = 1 + 10 P(Breaker wins), times the number of moves at an AND node. P from the
    /// anchor's logistic regression (log-odds of a Maker win = -4.63230495 - 9.67572108 [AND]
    /// - 0.87216265 empties + 17.23691808 phi).
    fn pn(&self) -> Number {
        let and = if self.and { 1.0 } else { 0.0 };
        let log_odds = -4.632_304_95 - 9.675_721_08 * and - 0.872_162_65 * f64::from(self.empties)
            + 17.236_918_08 * self.phi;
        let p_breaker = 1.0 / (1.0 + log_odds.exp());
        let moves = if self.and {
            f64::from(self.moves.max(1))
        } else {
            1.0
        };
        (SCALE * (1.0 + 10.0 * p_breaker) * moves).round() as Number
    }
}

/// `SCALE * 1000^exponent`, capped far below [`crate::pns::INFINITY`].
fn scaled_power(exponent: f64) -> Number {
    (SCALE * 1000f64.powf(exponent)).min(1e18).round() as Number
}

impl SevenGame {
    fn features(&self) -> Features {
        let (phi_num, moves) = if self.prepared_moves == UNPREPARED {
            self.measure()
        } else {
            (self.prepared_phi, self.prepared_moves)
        };
        Features {
            and: self.pos.to_move() == Side::Breaker,
            phi: f64::from(phi_num) / 128.0,
            empties: self.pos.empty_cells().count_ones(),
            moves: u32::from(moves),
        }
    }

    /// `phi * 128` and the number of moves of the position, as [`Self::features`] reads them.
    /// The moves are counted only with Breaker to move: [`Features::pn`] reads them at AND
    /// nodes alone.
    fn measure(&self) -> (u32, u8) {
        self.measure_lines(&Lines::of(&self.pos, self.hg))
    }

    /// [`Self::measure`] from the position's free lines.
    fn measure_lines(&self, l: &Lines) -> (u32, u8) {
        let moves = match self.pos.to_move() {
            Side::Breaker => self.moves_from(l).count_ones() as u8,
            Side::Maker => 0,
        };
        (u32::try_from(l.phi_num).unwrap_or(u32::MAX), moves)
    }
}

/// The connected components of the residual hypergraph whose edges are `lines` (the empty
/// cells of the free lines, [`residual`]; two cells are connected when a line holds both), as
/// cell masks in the order of their lowest cell.
fn components(lines: &[u128]) -> Vec<u128> {
    let mut parts = connected_parts(lines.to_vec());
    parts.sort_by_key(|p| p.trailing_zeros());
    parts
}

/// The free lines of `pos` as their empty cells (the residual hypergraph's edges).
fn residual(hg: &Hypergraph, pos: &Position) -> Vec<u128> {
    let empty = pos.empty_cells();
    hg.edges()
        .iter()
        .filter(|&&e| e & pos.breaker() == 0)
        .map(|&e| e & empty)
        .filter(|&r| r != 0)
        .collect()
}

/// The connected parts (cell masks) of the hypergraph whose edges are `lines`.
fn connected_parts(mut lines: Vec<u128>) -> Vec<u128> {
    let mut parts = Vec::new();
    while let Some(first) = lines.pop() {
        let mut part = first;
        loop {
            let before = lines.len();
            lines.retain(|&r| {
                if r & part != 0 {
                    part |= r;
                    false
                } else {
                    true
                }
            });
            if lines.len() == before {
                break;
            }
        }
        parts.push(part);
    }
    parts
}

/// What [`solve`] found.
#[derive(Debug, Clone)]
pub struct SolveReport {
    /// The root's outcome ([`Value::Proven`] = Maker wins).
    pub outcome: crate::pns::Outcome,
    /// Winning first moves of the side to move, when it wins: the ones the proof found, or with
    /// `all_moves` every one, in cell order. Empty when the side to move loses or it is unknown.
    /// Under limits, a move whose own search runs out of them is left out: the list may then
    /// be incomplete, or empty although the side to move wins.
    pub winning_moves: Vec<Cell>,
    /// Search counters over every search run ([`crate::pns::Stats::add_after`]).
    pub stats: crate::pns::Stats,
    /// Transposition-table entries at the end of the search that had most (the searches run
    /// one after the other: the main search, then one per open move where `all_moves` is on
    /// or the proof named no winning move).
    pub tt_entries: usize,
}

/// Solves `pos` with every technique on except `disabled`, within `limits`.
///
/// With `all_moves`, each move of the side to move is also proven or refuted on its own (each
/// with the same limits), so `winning_moves` is complete when no search runs out of its
/// limits (a move whose search does is left out).
pub fn solve(
    pos: Position,
    disabled: &[Technique],
    limits: &crate::pns::Limits,
    all_moves: bool,
) -> SolveReport {
    use crate::pns::{Outcome, Search};
    let game = SevenGame::new(pos, Rules::new(pos.cols(), disabled))
        .expect("the rules are built for the position's width");
    let mut search = Search::new(game.clone());
    let outcome = search.run(limits);
    let mut stats = search.stats();
    let mover_wins = match pos.to_move() {
        Side::Maker => Value::Proven,
        Side::Breaker => Value::Disproven,
    };
    let mut winning_moves: Vec<Cell> = search
        .root_children()
        .iter()
        .filter(|c| c.value == Some(mover_wins))
        .map(|c| c.mv)
        .collect();
    let mut tt_entries = search.table_len();
    drop(search);
    if outcome == Outcome::Solved(mover_wins) && (all_moves || winning_moves.is_empty()) {
        winning_moves.clear();
        let child = |cell: Cell| game.derived(pos.play(cell).expect("cells_of(empty) are empty"));
        // The moves the reductions decide need no search (a search of such a child ends as
        // soon as it simplifies its root): a root decided by the reductions names its winning
        // moves this way. The others are searched, in cell order.
        let mut open = Vec::new();
        for cell in cells_of(pos.empty_cells()) {
            match child(cell).simplify() {
                Some(v) if v == mover_wins => winning_moves.push(cell),
                Some(_) => {}
                None => open.push(cell),
            }
        }
        if !all_moves && !winning_moves.is_empty() {
            open.clear();
        }
        for cell in open {
            let mut s = Search::new(child(cell));
            let won = s.run(limits) == Outcome::Solved(mover_wins);
            let st = s.stats();
            stats.add_after(&st);
            tt_entries = tt_entries.max(s.table_len());
            if won {
                winning_moves.push(cell);
                if !all_moves {
                    break;
                }
            }
        }
    }
    winning_moves.sort();
    SolveReport {
        outcome,
        winning_moves,
        stats,
        tt_entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn cell_set_sizes_agree_with_the_population_count(
            m in proptest::prelude::any::<u128>(),
            few in proptest::collection::vec(0u32..128, 0..4),
        ) {
            // Random sets are mostly large; the sets of up to three cells are the edge cases.
            let small = few.iter().fold(0u128, |m, &c| m | 1 << c);
            for m in [m, small] {
                proptest::prop_assert_eq!(two_or_more(m), m.count_ones() >= 2);
                proptest::prop_assert_eq!(exactly_two(m), m.count_ones() == 2);
            }
        }
    }

    #[test]
    fn a_position_stays_small() {
        // Every node of a search keeps its position: 16 bytes more is 10% more memory.
        assert!(std::mem::size_of::<SevenGame>() <= 64);
    }

    #[test]
    fn forcing_sequences_are_found_and_single_threats_are_not_doubled() {
        let [a, b, c, d, e] = [1u128, 2, 4, 8, 16];
        // Two edges with the same two empty cells: playing a (or b) is one threat.
        assert!(!ThreatSpace::search(&[a | b, a | b]));
        assert!(!ThreatSpace::search(&[a | b, a | b, c | d | e]));
        // Maker a (Breaker b), then c has two partners, d and e: a double threat.
        assert!(ThreatSpace::search(&[a | b, a | c | d, c | e]));
        // The same, but Breaker's forced reply b kills the line {b, c, e}.
        assert!(!ThreatSpace::search(&[a | b, a | c | d, b | c | e]));
    }

    #[test]
    fn cut_vertices_are_the_cells_whose_removal_splits_the_lines() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(3);
        let mut found = 0;
        for n in 4..=9u32 {
            let cols = Cols::try_from(n).expect("in range");
            let hg = Hypergraph::paper(cols);
            for _ in 0..300 {
                let mut pos = Position::empty(cols, Side::Maker);
                for cell in cols.iter_cells() {
                    match rng.random_range(0..10) {
                        0..3 => pos.assign(Side::Maker, cell.bit()),
                        3..6 => pos.assign(Side::Breaker, cell.bit()),
                        _ => {}
                    }
                }
                let lines = residual(&hg, &pos);
                if connected_parts(lines.clone()).len() != 1 {
                    continue;
                }
                let cells = lines.iter().fold(0u128, |m, &l| m | l);
                let want: Vec<u128> = cells_of(cells)
                    .map(|c| c.bit())
                    .filter(|&v| {
                        let rest = lines.iter().map(|&l| l & !v).filter(|&l| l != 0);
                        connected_parts(rest.collect()).len() >= 2
                    })
                    .collect();
                found += want.len();
                assert_eq!(cut_vertices(&lines), want, "{pos}");
            }
        }
        assert!(found > 50, "{found} cut vertices seen");
    }
}
