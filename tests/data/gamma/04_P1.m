Network 04_P1 {
Layer L04 {
Type: DSCONV
Dimensions { K: 1, C: 384, Y: 14, X: 14, R: 3, S: 3 }
Dataflow {
TemporalMap(13,13) X';
TemporalMap(14,14) Y';
SpatialMap(1,1) C;
TemporalMap(3,3) R;
TemporalMap(3,3) S;
Cluster(3,P);
TemporalMap(1,1) C;
TemporalMap(3,3) S;
TemporalMap(1,1) X';
SpatialMap(1,1) Y';
TemporalMap(3,3) R;
}
}
}
