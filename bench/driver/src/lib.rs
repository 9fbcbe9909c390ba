//! Timing scenarios for the cargo symx driver; the tests are in tests/.
