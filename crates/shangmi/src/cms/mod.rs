//! CMS / GM/T 0010 (placeholder until signed and enveloped data land).
