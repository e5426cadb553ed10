Network 13_P2_384 {
Layer L13 {
Type: DSCONV
Dimensions { K: 1, C: 144, Y: 58, X: 58, R: 3, S: 3 }
Dataflow {
TemporalMap(2,2) X';
SpatialMap(37,37) C;
TemporalMap(3,3) S;
TemporalMap(3,3) R;
TemporalMap(58,58) Y';
Cluster(86,P);
SpatialMap(1,1) C;
TemporalMap(3,3) R;
TemporalMap(1,1) Y';
TemporalMap(3,3) S;
TemporalMap(1,1) X';
}
}
}
