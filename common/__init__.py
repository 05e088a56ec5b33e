"""Plain things every floor may use: settings sections, JSON-line events, token estimates, text rules."""
