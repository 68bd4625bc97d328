// Entry point of the Engram UI.
