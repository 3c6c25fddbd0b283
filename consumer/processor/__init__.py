"""The stream processor: landing topic to clean or quarantine, exactly once."""
