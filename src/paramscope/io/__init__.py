"""The untrusted-input boundary: config files, Hub ids, links."""
