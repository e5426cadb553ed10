Network 13_P2_96 {
Layer L13 {
Type: DSCONV
Dimensions { K: 1, C: 144, Y: 58, X: 58, R: 3, S: 3 }
Dataflow {
TemporalMap(57,57) Y';
TemporalMap(3,3) S;
SpatialMap(1,1) C;
TemporalMap(3,3) R;
TemporalMap(6,6) X';
Cluster(6,P);
TemporalMap(18,18) Y';
SpatialMap(1,1) X';
TemporalMap(3,3) S;
TemporalMap(1,1) C;
TemporalMap(3,3) R;
}
}
}
