pragma circom 2.1.5;

// credentialAtomicQueryV3: see lib/credentialAtomicQueryV3Main.circom.
include "lib/credentialAtomicQueryV3Main.circom";

component main {public [requestID,
                        issuerID,
                        issuerClaimNonRevState,
                        claimSchema,
                        slotIndex,
                        claimPathKey,
                        operator,
                        value,
                        valueArraySize,
                        timestamp,
                        isRevocationChecked,
                        proofType,
                        verifierID,
                        nullifierSessionID]} = CredentialAtomicQueryV3(40, 32, 64); // issuerLevels, claimLevels, maxValueArraySize
