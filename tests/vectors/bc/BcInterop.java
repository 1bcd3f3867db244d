// ShangMi interop with BouncyCastle 1.72 (Debian's libbcprov-java, libbcpkix-java,
// libbcutil-java). Build and run (see tests/vectors/README.md, scripts/bc_interop.sh):
//   CP=/usr/share/java/bcprov.jar:/usr/share/java/bcpkix.jar:/usr/share/java/bcutil.jar
//   javac -cp $CP BcInterop.java
//   java -cp $CP:. BcInterop write KEYDIR OUTDIR PASSWORD
//       KEYDIR holds key.pem (PKCS#8 SM2), leaf.pem, ca.pem. Writes into OUTDIR:
//       bc-sm.p12 (PBES2: PBKDF2-HMAC-SM3 + SM4-CBC bags, SM3 MAC), bc-signed.p7s and
//       bc-signed-detached.p7s (SignedData, SM3withSM2) and bc-enveloped.p7m (EnvelopedData to leaf.pem),
//       each only if BouncyCastle can write it; what it cannot is printed as "CANNOT".
//   java -cp $CP:. BcInterop pfx FILE PASSWORD
//   java -cp $CP:. BcInterop signed FILE [DETACHED-CONTENT-FILE]
//   java -cp $CP:. BcInterop enveloped FILE KEY.pem CERT.pem
// Readers print what they found and exit 1 on any failure.
import java.io.*;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.security.*;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.util.*;
import org.bouncycastle.asn1.*;
import org.bouncycastle.asn1.gm.GMObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.*;
import org.bouncycastle.cms.jcajce.*;
import org.bouncycastle.crypto.digests.SM3Digest;
import org.bouncycastle.jce.ECNamedCurveTable;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.operator.OutputEncryptor;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.pkcs.*;
import org.bouncycastle.pkcs.bc.BcPKCS12MacCalculatorBuilder;
import org.bouncycastle.pkcs.jcajce.*;

public class BcInterop {
    static final byte[] SIGNED_CONTENT = "signed by BouncyCastle 1.72".getBytes(StandardCharsets.UTF_8);
    static final byte[] ENVELOPED_CONTENT = "enveloped by BouncyCastle 1.72".getBytes(StandardCharsets.UTF_8);

    static Object pem(String p) throws Exception {
        try (PEMParser r = new PEMParser(new FileReader(p))) { return r.readObject(); }
    }
    static PrivateKey key(String p) throws Exception {
        return new JcaPEMKeyConverter().setProvider("BC").getPrivateKey((PrivateKeyInfo) pem(p));
    }
    static X509Certificate cert(String p) throws Exception {
        return new JcaX509CertificateConverter().setProvider("BC").getCertificate((X509CertificateHolder) pem(p));
    }
    // d*G on SM2's curve equals the certificate's public point.
    static boolean matches(PrivateKey k, X509Certificate c) {
        BigInteger d = ((ECPrivateKey) k).getS();
        ECPoint q = ECNamedCurveTable.getParameterSpec("sm2p256v1").getG().multiply(d).normalize();
        java.security.spec.ECPoint w = ((ECPublicKey) c.getPublicKey()).getW();
        return q.getAffineXCoord().toBigInteger().equals(w.getAffineX())
            && q.getAffineYCoord().toBigInteger().equals(w.getAffineY());
    }

    public static void main(String[] a) throws Exception {
        Security.addProvider(new BouncyCastleProvider());
        boolean ok;
        try {
            switch (a[0]) {
                case "write": ok = write(a[1], a[2], a[3]); break;
                case "pfx": ok = readPfx(a[1], a[2]); break;
                case "signed": ok = readSigned(a[1], a.length > 2 ? a[2] : null); break;
                case "enveloped": ok = readEnveloped(a[1], a[2], a[3]); break;
                default: throw new IllegalArgumentException("unknown command " + a[0]);
            }
        } catch (Exception e) {
            System.out.println("FAIL " + e);
            ok = false;
        }
        System.exit(ok ? 0 : 1);
    }

    static boolean write(String dir, String out, String password) throws Exception {
        PrivateKey key = key(dir + "/key.pem");
        X509Certificate leaf = cert(dir + "/leaf.pem"), ca = cert(dir + "/ca.pem");
        boolean ok = true;
        // PFX: PBES2 with PBKDF2-HMAC-SM3 and SM4-CBC through BC's JCE builder, SM3 MAC.
        ok &= pfx(key, leaf, ca, out, "bc-sm.p12", password, GMObjectIdentifiers.hmac_sm3);
        // The same with the HMAC-SHA256 PRF: SM4-CBC bags, SM3 MAC.
        ok &= pfx(key, leaf, ca, out, "bc-sm4-sha256prf.p12", password, PKCSObjectIdentifiers.id_hmacWithSHA256);
        return write2(key, leaf, ca, out) & ok;
    }

    static boolean pfx(PrivateKey key, X509Certificate leaf, X509Certificate ca, String out, String name,
            String password, ASN1ObjectIdentifier prf) {
        try {
            char[] pw = password.toCharArray();
            OutputEncryptor enc = new JcePKCSPBEOutputEncryptorBuilder(GMObjectIdentifiers.sms4_cbc)
                .setPRF(new AlgorithmIdentifier(prf, DERNull.INSTANCE))
                .setIterationCount(2048).setProvider("BC").build(pw);
            byte[] id = MessageDigest.getInstance("SHA-1").digest(leaf.getEncoded());
            PKCS12SafeBagBuilder leafBag = new JcaPKCS12SafeBagBuilder(leaf);
            leafBag.addBagAttribute(PKCSObjectIdentifiers.pkcs_9_at_friendlyName, new DERBMPString("bc leaf"));
            leafBag.addBagAttribute(PKCSObjectIdentifiers.pkcs_9_at_localKeyId, new DEROctetString(id));
            PKCS12SafeBagBuilder caBag = new JcaPKCS12SafeBagBuilder(ca);
            PKCS12SafeBagBuilder keyBag = new JcaPKCS12SafeBagBuilder(key, enc);
            keyBag.addBagAttribute(PKCSObjectIdentifiers.pkcs_9_at_friendlyName, new DERBMPString("bc leaf"));
            keyBag.addBagAttribute(PKCSObjectIdentifiers.pkcs_9_at_localKeyId, new DEROctetString(id));
            PKCS12PfxPduBuilder b = new PKCS12PfxPduBuilder();
            b.addEncryptedData(enc, new PKCS12SafeBag[] { leafBag.build(), caBag.build() });
            b.addData(keyBag.build());
            PKCS12PfxPdu pfx = b.build(new BcPKCS12MacCalculatorBuilder(new SM3Digest(),
                new AlgorithmIdentifier(GMObjectIdentifiers.sm3, DERNull.INSTANCE)), pw);
            Files.write(Paths.get(out, name), pfx.getEncoded());
            System.out.println("WROTE " + name);
            return true;
        } catch (Exception e) {
            System.out.println("CANNOT " + name + ": " + e);
            return false;
        }
    }

    static boolean write2(PrivateKey key, X509Certificate leaf, X509Certificate ca, String out) {
        boolean ok = true;
        // SignedData, SM3withSM2 over signed attributes, content encapsulated.
        try {
            CMSSignedDataGenerator g = new CMSSignedDataGenerator();
            g.addSignerInfoGenerator(new JcaSignerInfoGeneratorBuilder(
                    new JcaDigestCalculatorProviderBuilder().setProvider("BC").build())
                .build(new JcaContentSignerBuilder("SM3withSM2").setProvider("BC").build(key), leaf));
            g.addCertificates(new JcaCertStore(Arrays.asList(leaf, ca)));
            CMSSignedData s = g.generate(new CMSProcessableByteArray(SIGNED_CONTENT), true);
            Files.write(Paths.get(out, "bc-signed.p7s"), s.getEncoded());
            System.out.println("WROTE bc-signed.p7s");
            CMSSignedData d = g.generate(new CMSProcessableByteArray(SIGNED_CONTENT), false);
            Files.write(Paths.get(out, "bc-signed-detached.p7s"), d.getEncoded());
            System.out.println("WROTE bc-signed-detached.p7s");
        } catch (Exception e) {
            System.out.println("CANNOT bc-signed.p7s: " + e);
            ok = false;
        }
        // EnvelopedData: SM2 key transport (BC's JCE "SM2" cipher) and SM4-CBC content.
        try {
            CMSEnvelopedDataGenerator g = new CMSEnvelopedDataGenerator();
            g.addRecipientInfoGenerator(new JceKeyTransRecipientInfoGenerator(leaf,
                new AlgorithmIdentifier(GMObjectIdentifiers.sm2encrypt)).setProvider("BC"));
            CMSEnvelopedData e = g.generate(new CMSProcessableByteArray(ENVELOPED_CONTENT),
                new JceCMSContentEncryptorBuilder(GMObjectIdentifiers.sms4_cbc).setProvider("BC").build());
            Files.write(Paths.get(out, "bc-enveloped.p7m"), e.getEncoded());
            System.out.println("WROTE bc-enveloped.p7m");
        } catch (Exception e) {
            System.out.println("CANNOT bc-enveloped.p7m: " + e);
            ok = false;
        }
        return ok;
    }

    // Read with BC's PKCS#12 PDU API (its KeyStore has no MAC by the SM3 OID):
    // the MAC checked, bags decrypted, the key's public point found in a certificate.
    static boolean readPfx(String file, String password) throws Exception {
        char[] pw = password.toCharArray();
        PKCS12PfxPdu pfx = new PKCS12PfxPdu(Files.readAllBytes(Paths.get(file)));
        if (pfx.hasMac()) {
            boolean mv = pfx.isMacValid(new org.bouncycastle.pkcs.bc.BcPKCS12MacCalculatorBuilderProvider(
                org.bouncycastle.operator.bc.BcDefaultDigestProvider.INSTANCE), pw);
            System.out.println((mv ? "OK" : "FAIL") + " MAC (" + pfx.getMacAlgorithmID().getAlgorithm() + ") valid: " + mv);
            if (!mv) return false;
        }
        org.bouncycastle.operator.InputDecryptorProvider dec =
            new JcePKCSPBEInputDecryptorProviderBuilder().setProvider("BC").build(pw);
        List<PrivateKey> keys = new ArrayList<>();
        List<X509Certificate> certs = new ArrayList<>();
        JcaX509CertificateConverter cc = new JcaX509CertificateConverter().setProvider("BC");
        JcaPEMKeyConverter kc = new JcaPEMKeyConverter().setProvider("BC");
        for (org.bouncycastle.asn1.pkcs.ContentInfo ci : pfx.getContentInfos()) {
            PKCS12SafeBagFactory f = ci.getContentType().equals(PKCSObjectIdentifiers.encryptedData)
                ? new PKCS12SafeBagFactory(ci, dec) : new PKCS12SafeBagFactory(ci);
            for (PKCS12SafeBag bag : f.getSafeBags()) {
                Object v = bag.getBagValue();
                if (v instanceof X509CertificateHolder) certs.add(cc.getCertificate((X509CertificateHolder) v));
                else if (v instanceof PKCS8EncryptedPrivateKeyInfo)
                    keys.add(kc.getPrivateKey(((PKCS8EncryptedPrivateKeyInfo) v).decryptPrivateKeyInfo(dec)));
                else if (v instanceof PrivateKeyInfo) keys.add(kc.getPrivateKey((PrivateKeyInfo) v));
            }
        }
        System.out.println("found " + keys.size() + " key(s), " + certs.size() + " certificate(s)");
        if (keys.size() != 1) { System.out.println("FAIL expected one key"); return false; }
        for (X509Certificate c : certs) {
            if (matches(keys.get(0), c)) {
                System.out.println("OK key matches certificate " + c.getSubjectX500Principal());
                return true;
            }
        }
        System.out.println("FAIL no certificate carries the key's public key");
        return false;
    }

    static boolean readSigned(String file, String detachedContent) throws Exception {
        byte[] der = Files.readAllBytes(Paths.get(file));
        CMSSignedData s = detachedContent == null ? new CMSSignedData(der)
            : new CMSSignedData(new CMSProcessableByteArray(Files.readAllBytes(Paths.get(detachedContent))), der);
        boolean any = false;
        for (SignerInformation si : s.getSignerInfos().getSigners()) {
            @SuppressWarnings("unchecked")
            Collection<X509CertificateHolder> cs = s.getCertificates().getMatches(si.getSID());
            if (cs.isEmpty()) { System.out.println("FAIL signer certificate not carried"); return false; }
            X509CertificateHolder c = cs.iterator().next();
            boolean v = si.verify(new JcaSimpleSignerInfoVerifierBuilder().setProvider("BC").build(c));
            System.out.println((v ? "OK" : "FAIL") + " signature by " + c.getSubject() + " (digest "
                + si.getDigestAlgOID() + ", signature " + si.getEncryptionAlgOID() + ") verifies: " + v);
            if (!v) return false;
            any = true;
        }
        Object content = s.getSignedContent() == null ? null : s.getSignedContent().getContent();
        System.out.println("content: " + (content == null ? "(detached)"
            : new String((byte[]) content, StandardCharsets.UTF_8)));
        if (!any) System.out.println("FAIL no signers");
        return any;
    }

    static boolean readEnveloped(String file, String keyPem, String certPem) throws Exception {
        CMSEnvelopedData e = new CMSEnvelopedData(Files.readAllBytes(Paths.get(file)));
        PrivateKey k = key(keyPem);
        X509Certificate c = cert(certPem);
        RecipientInformation r = e.getRecipientInfos().get(new JceKeyTransRecipientId(c));
        if (r == null) { System.out.println("FAIL no recipient entry names " + c.getSubjectX500Principal()); return false; }
        byte[] pt = r.getContent(new JceKeyTransEnvelopedRecipient(k).setProvider("BC"));
        System.out.println("OK decrypted (key transport " + r.getKeyEncryptionAlgOID() + ", content "
            + e.getEncryptionAlgOID() + "): " + new String(pt, StandardCharsets.UTF_8));
        return true;
    }
}
