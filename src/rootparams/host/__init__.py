"""The host: the machine a study measures on: the timed-read lock, the VM's free page reporting, the page
cache, the storage profiles and their throttling, the system monitor, and the remote profiles' endpoints.

The layers: docs/architecture.md."""
