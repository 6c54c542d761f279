// Shared helpers for Kartpack tests.
