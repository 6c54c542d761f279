// Placeholder entry point.
print("kartpack")
