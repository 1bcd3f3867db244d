//! DER/PEM formats: PKCS#8, SPKI, SEC1, GM/T 0009 structures.
