pragma circom 2.1.5;

// credentialAtomicQueryV3OnChain-16-16-64-16-32: see lib/credentialAtomicQueryV3OnChainMain.circom.
include "lib/credentialAtomicQueryV3OnChainMain.circom";

component main {public [requestID,
                        issuerID,
                        issuerClaimNonRevState,
                        timestamp,
                        challenge,
                        gistRoot,
                        proofType,
                        isBJJAuthEnabled]} = CredentialAtomicQueryV3OnChain(16, 16, 64, 16, 32); // issuerLevels, claimLevels, maxValueArraySize, idOwnershipLevels, onChainLevels
