pragma circom 2.1.5;

// authV2: see lib/authMain.circom. Public signals: userID, challenge, gistRoot.
include "lib/authMain.circom";

component main {public [challenge, gistRoot]} = Auth(40, 64); // idOwnershipLevels, gistLevels
