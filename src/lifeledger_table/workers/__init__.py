"""Work done in worker processes, so that the tables being played go on meanwhile: replaying a
record (:mod:`.replay`) and drawing QR codes (:mod:`.drawing`)."""
