Network 03_P2 {
Layer L03 {
Type: DSCONV
Dimensions { K: 1, C: 32, Y: 112, X: 112, R: 3, S: 3 }
Dataflow {
TemporalMap(59,59) X';
TemporalMap(3,3) S;
TemporalMap(3,3) R;
TemporalMap(4,4) Y';
SpatialMap(2,2) C;
Cluster(60,P);
TemporalMap(1,1) C;
SpatialMap(1,1) X';
TemporalMap(3,3) S;
TemporalMap(1,1) Y';
TemporalMap(3,3) R;
}
}
}
