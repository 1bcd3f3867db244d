// Writes bc-aes256-sm3mac.p12 with BouncyCastle 1.72 (Debian's libbcprov-java,
// libbcpkix-java, libbcutil-java):
//   CP=/usr/share/java/bcprov.jar:/usr/share/java/bcpkix.jar:/usr/share/java/bcutil.jar
//   javac -cp $CP MakePfx.java && java -cp $CP:. MakePfx . 'bc密码' bc-aes256-sm3mac.p12
// The SM2 key and certificates of this folder; PBES2 (PBKDF2-HMAC-SHA256,
// AES-256-CBC) bags and an SM3 MAC, written as BER. (BouncyCastle 1.72's JCE
// PBES2 builder knows neither SM4-CBC nor the HMAC-SM3 PRF; later versions
// write the all-ShangMi form.)
import java.io.*;
import java.nio.file.*;
import java.security.*;
import java.security.cert.X509Certificate;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.gm.GMObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.DERBMPString;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.pkcs.*;
import org.bouncycastle.pkcs.jcajce.*;
import org.bouncycastle.pkcs.bc.BcPKCS12MacCalculatorBuilder;
import org.bouncycastle.crypto.digests.SM3Digest;
import org.bouncycastle.operator.OutputEncryptor;

public class MakePfx {
    static Object read(String p) throws Exception {
        try (PEMParser r = new PEMParser(new FileReader(p))) { return r.readObject(); }
    }
    public static void main(String[] a) throws Exception {
        Security.addProvider(new BouncyCastleProvider());
        String dir = a[0];
        char[] pw = a[1].toCharArray();
        PrivateKey key = new JcaPEMKeyConverter().setProvider("BC").getPrivateKey((PrivateKeyInfo) read(dir + "/key.pem"));
        JcaX509CertificateConverter cc = new JcaX509CertificateConverter().setProvider("BC");
        X509Certificate leaf = cc.getCertificate((X509CertificateHolder) read(dir + "/leaf.pem"));
        X509Certificate ca = cc.getCertificate((X509CertificateHolder) read(dir + "/ca.pem"));
        byte[] id = MessageDigest.getInstance("SHA-1").digest(leaf.getEncoded());
        OutputEncryptor enc = new JcePKCSPBEOutputEncryptorBuilder(org.bouncycastle.asn1.nist.NISTObjectIdentifiers.id_aes256_CBC)
            .setPRF(new AlgorithmIdentifier(PKCSObjectIdentifiers.id_hmacWithSHA256, DERNull.INSTANCE))
            .setIterationCount(2048).setProvider("BC").build(pw);
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
        Files.write(Paths.get(a[2]), pfx.getEncoded());
    }
}
