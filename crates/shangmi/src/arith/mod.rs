//! 256-bit limb arithmetic shared by SM2 and SM9: Montgomery fields, inversion.
