"""Shared helpers of the package (argument checks, the progress bar, monotone inversion,
tolerant ties, the earlier names); private: nothing here is public API."""
