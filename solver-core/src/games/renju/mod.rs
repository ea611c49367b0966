//! renju rules (in progress).
