pragma circom 2.1.5;

// authV3-8-32: see lib/authMain.circom. Public signals: userID, challenge, gistRoot.
include "lib/authMain.circom";

component main {public [challenge, gistRoot]} = Auth(8, 32); // idOwnershipLevels, gistLevels
