//! `solver-worker`: leases most-proving leaves from the coordinator, simplifies, decomposes and
//! searches them within a budget, and reports back. (The job loop arrives with the worker issue.)
