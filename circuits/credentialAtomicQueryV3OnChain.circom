pragma circom 2.1.5;

// credentialAtomicQueryV3OnChain: see lib/credentialAtomicQueryV3OnChainMain.circom.
include "lib/credentialAtomicQueryV3OnChainMain.circom";

component main {public [requestID,
                        issuerID,
                        issuerClaimNonRevState,
                        timestamp,
                        challenge,
                        gistRoot,
                        proofType,
                        isBJJAuthEnabled]} = CredentialAtomicQueryV3OnChain(40, 32, 64, 40, 64); // issuerLevels, claimLevels, maxValueArraySize, idOwnershipLevels, onChainLevels
