//! A scriptable mock model server for catui's tests and demo (placeholder).
