Network 04_P2 {
Layer L04 {
Type: DSCONV
Dimensions { K: 1, C: 384, Y: 14, X: 14, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
TemporalMap(14,14) X';
TemporalMap(3,3) R;
SpatialMap(1,1) C;
TemporalMap(13,13) Y';
Cluster(13,P);
TemporalMap(1,1) C;
TemporalMap(1,1) X';
TemporalMap(3,3) S;
SpatialMap(1,1) Y';
TemporalMap(3,3) R;
}
}
}
